package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"
)

type strategicCase struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Original   json.RawMessage `json:"original"`
	Patch      json.RawMessage `json:"patch"`
}

type strategicAnswer struct {
	Result  map[string]any `json:"result,omitempty"`
	Code    int            `json:"code,omitempty"`
	Message string         `json:"message,omitempty"`
}

// answerOf is kube-apiserver's applyPatchToObject up to the merge: the patch decoded as the server
// decodes it (ints preserved), merged by the kind's Go struct tags, failures coded as
// interpretStrategicMergePatchError codes them (anything unlisted is a plain error: 500).
func answerOf(c strategicCase) strategicAnswer {
	gv, err := schema.ParseGroupVersion(c.APIVersion)
	if err != nil {
		return strategicAnswer{Code: http.StatusBadRequest, Message: err.Error()}
	}
	object, err := scheme.Scheme.New(gv.WithKind(c.Kind))
	if err != nil {
		return strategicAnswer{Code: http.StatusBadRequest, Message: err.Error()}
	}
	original := map[string]any{}
	patch := map[string]any{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(c.Original, &original); err != nil {
		return strategicAnswer{Code: http.StatusBadRequest, Message: err.Error()}
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(c.Patch, &patch); err != nil {
		return strategicAnswer{Code: http.StatusBadRequest, Message: err.Error()}
	}
	result, err := strategicpatch.StrategicMergeMapPatch(original, patch, object)
	switch err {
	case nil:
		return strategicAnswer{Result: result}
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return strategicAnswer{Code: http.StatusBadRequest, Message: err.Error()}
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return strategicAnswer{Code: http.StatusUnprocessableEntity, Message: "the server rejected our request due to an error in our request"}
	default:
		return strategicAnswer{Code: http.StatusInternalServerError, Message: err.Error()}
	}
}

// strategicOracle answers one JSON case per stdin line with one JSON answer per stdout line:
// the test oracle of adapters/memory/strategic (test/adapters/memory/strategic).
func strategicOracle() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var c strategicCase
		answer := strategicAnswer{}
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			answer = strategicAnswer{Code: http.StatusBadRequest, Message: err.Error()}
		} else {
			answer = func() (a strategicAnswer) {
				defer func() {
					if r := recover(); r != nil {
						a = strategicAnswer{Code: http.StatusInternalServerError, Message: "panic"}
					}
				}()
				return answerOf(c)
			}()
		}
		if err := out.Encode(answer); err != nil {
			panic(err)
		}
	}
}
