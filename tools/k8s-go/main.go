// Command k8s-go reads Kubernetes' Go code for kreconcile. By default it writes the field-number table the in-memory API server decodes protobuf
// request bodies with (schemas/kubernetes-<minor>.protobuf.json): for every kind client-go's
// scheme registers from k8s.io/api, and every struct those kinds reach, each field's protobuf
// number, JSON name and Go type, read from the struct tags the generated.proto files and the
// generated marshallers are produced from (`protobuf:"bytes,2,opt,name=spec"`, `json:"spec,omitempty"`).
// Run by `npm run protobuf:update`. `encode` prints protobuf test fixtures instead (encode.go);
// `strategic` answers strategic merge patches with apimachinery's own strategicpatch (strategic.go).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// Types the wire encodes in their own way (custom Marshal/JSON): named by a code, not walked.
var special = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "microtime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   "duration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "raw",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "intorstring",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    "raw",
}

type table struct {
	Version string                       `json:"kubernetesVersion"`
	Kinds   map[string]map[string]string `json:"kinds"`
	// Type name → fields in Go struct order (the JSON order): [number, jsonName, element, flags].
	Types map[string][][]any `json:"types"`
}

func typeName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// hasProtoMarshal: a named slice type gogo encodes as a message {1: repeated items} (map values such as ExtraValue).
func hasProtoMarshal(t reflect.Type) bool {
	_, ok := reflect.PointerTo(t).MethodByName("Unmarshal")
	return ok && t.Name() != ""
}

func (tb *table) element(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if code, ok := special[typeName(t)]; ok {
		return code
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int32, reflect.Int64, reflect.Int, reflect.Int16, reflect.Int8:
		return "int"
	case reflect.Uint32, reflect.Uint64, reflect.Uint, reflect.Uint16:
		return "uint"
	case reflect.Float64, reflect.Float32:
		return "float" + strconv.Itoa(t.Bits())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		if hasProtoMarshal(t) {
			name := typeName(t)
			if _, seen := tb.Types[name]; !seen {
				tb.Types[name] = nil
				tb.Types[name] = [][]any{{1, "items", tb.element(t.Elem()), "lw"}}
			}
			return name
		}
	case reflect.Struct:
		tb.walk(t)
		return typeName(t)
	}
	panic(fmt.Sprintf("no protobuf element for %s (%s)", t, t.Kind()))
}

func tagNumber(tag string) (int, bool) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(parts[1])
	return n, err == nil
}

func (tb *table) field(f reflect.StructField) ([]any, bool) {
	number, ok := tagNumber(f.Tag.Get("protobuf"))
	if !ok {
		return nil, false
	}
	jsonTag := strings.Split(f.Tag.Get("json"), ",")
	name := jsonTag[0]
	flags := ""
	for _, option := range jsonTag[1:] {
		switch option {
		case "omitempty":
			flags += "o"
		case "omitzero":
			flags += "z"
		case "inline":
			flags += "i"
		}
	}
	if name == "-" {
		return nil, false
	}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		flags += "p"
		t = t.Elem()
	}
	var element string
	switch {
	case t.Kind() == reflect.Map:
		flags += "m"
		element = tb.element(t.Elem())
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && !hasProtoMarshal(t):
		flags += "l"
		element = tb.element(t.Elem())
	default:
		element = tb.element(t)
	}
	return []any{number, name, element, flags}, true
}

func (tb *table) walk(t reflect.Type) {
	name := typeName(t)
	if _, seen := tb.Types[name]; seen {
		return
	}
	tb.Types[name] = nil
	fields := [][]any{}
	for i := 0; i < t.NumField(); i++ {
		if entry, ok := tb.field(t.Field(i)); ok {
			fields = append(fields, entry)
		}
	}
	tb.Types[name] = fields
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "encode" {
		encodeFixtures()
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "strategic" {
		strategicOracle()
		return
	}
	tb := &table{Version: os.Args[1], Kinds: map[string]map[string]string{}, Types: map[string][][]any{}}
	known := scheme.Scheme.AllKnownTypes()
	gvks := make([]schema.GroupVersionKind, 0, len(known))
	for gvk := range known {
		gvks = append(gvks, gvk)
	}
	sort.Slice(gvks, func(a, b int) bool { return gvks[a].String() < gvks[b].String() })
	for _, gvk := range gvks {
		t := known[gvk]
		if gvk.Version == "__internal" || !strings.HasPrefix(t.PkgPath(), "k8s.io/api/") || strings.HasSuffix(gvk.Kind, "Options") || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		apiVersion := gvk.GroupVersion().String()
		if tb.Kinds[apiVersion] == nil {
			tb.Kinds[apiVersion] = map[string]string{}
		}
		tb.Kinds[apiVersion][gvk.Kind] = typeName(t)
		tb.walk(t)
	}
	out, err := json.Marshal(tb)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(out, '\n'))
}
