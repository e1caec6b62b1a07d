package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

// fixture is one object as client-go sends it in protobuf, beside the JSON encoding/json writes
// for the same typed object: the decoder's expected answer.
type fixture struct {
	Protobuf string          `json:"protobuf"`
	JSON     json.RawMessage `json:"json"`
}

// encodeFixtures reads a JSON list of manifests on stdin and prints their fixtures: the test
// data of adapters/memory/http/protobuf-body.ts, made by the real serializers.
func encodeFixtures() {
	var manifests []json.RawMessage
	if err := json.NewDecoder(os.Stdin).Decode(&manifests); err != nil {
		panic(err)
	}
	serializer := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	fixtures := []fixture{}
	for _, manifest := range manifests {
		object, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(manifest, nil, nil)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", manifest, err))
		}
		object.GetObjectKind().SetGroupVersionKind(*gvk)
		var wire bytes.Buffer
		if err := serializer.Encode(object, &wire); err != nil {
			panic(err)
		}
		expected, err := json.Marshal(object)
		if err != nil {
			panic(err)
		}
		fixtures = append(fixtures, fixture{Protobuf: base64.StdEncoding.EncodeToString(wire.Bytes()), JSON: expected})
	}
	out, err := json.MarshalIndent(fixtures, "", " ")
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(out, '\n'))
}
