// Command go-types writes core/canonical/go-types.generated.ts: the Go types of every built-in
// kind of Kubernetes 1.36 (schemas/kubernetes-1.36.json lists them), walked by reflection from the
// structs kube-apiserver decodes into, with how its encoder stores each field. Every rule the table
// states is checked here against the real encoders (encoding/json, which the apimachinery JSON
// serializer uses, and the protobuf serializer etcd storage uses); a rule that does not hold stops
// the generation. See docs/decisions/0021-storage-model-from-go-types.md.
//
// Usage: go run . <schemas/kubernetes-1.36.json> <output.ts>
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// newScheme registers every group of the kind list, without client-go.
func newScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		admissionregistrationv1.AddToScheme, appsv1.AddToScheme, authenticationv1.AddToScheme,
		authorizationv1.AddToScheme, autoscalingv1.AddToScheme, autoscalingv2.AddToScheme, batchv1.AddToScheme,
		certificatesv1.AddToScheme, coordinationv1.AddToScheme, corev1.AddToScheme, discoveryv1.AddToScheme,
		eventsv1.AddToScheme, flowcontrolv1.AddToScheme, networkingv1.AddToScheme, nodev1.AddToScheme,
		policyv1.AddToScheme, rbacv1.AddToScheme, resourcev1.AddToScheme, schedulingv1.AddToScheme,
		storagev1.AddToScheme, apiextensionsv1.AddToScheme, apiregistrationv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			fail("registering a group: %v", err)
		}
	}
	return scheme
}

// Values whose JSON form is their own (a MarshalJSON method), by the name the table gives them.
var leafTypes = map[reflect.Type]string{
	reflect.TypeFor[resource.Quantity]():     "quantity",
	reflect.TypeFor[corev1.ResourceList]():   "resourceList",
	reflect.TypeFor[intstr.IntOrString]():    "intOrString",
	reflect.TypeFor[metav1.Time]():           "time",
	reflect.TypeFor[metav1.MicroTime]():      "microTime",
	reflect.TypeFor[metav1.Duration]():       "duration",
	reflect.TypeFor[runtime.RawExtension]():  "raw",
	reflect.TypeFor[apiextensionsv1.JSON](): "raw",
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// field is one JSON field of a struct, as encoding/json sees it (embedded structs flattened).
type field struct {
	Name      string
	Type      string
	Pointer   bool
	OmitEmpty bool
	OmitZero  bool
	Inline    bool
	// Dropped: the encoder writes nothing at the field's zero value (a nil pointer for a pointer).
	Dropped bool
	// Zero: what the encoder writes at the zero value, when it writes something.
	Zero json.RawMessage
	goType reflect.Type
	index  []int
}

type walker struct {
	types   map[string][]field
	opaque  map[string]bool
	pending []reflect.Type
}

// typeName is the package path without its module prefix and the Go name: `core/v1.PodSpec`.
func typeName(t reflect.Type) string {
	path := t.PkgPath()
	for _, prefix := range []string{"k8s.io/api/", "k8s.io/apimachinery/pkg/apis/", "k8s.io/apiextensions-apiserver/pkg/apis/", "k8s.io/kube-aggregator/pkg/apis/", "k8s.io/apimachinery/pkg/"} {
		path = strings.TrimPrefix(path, prefix)
	}
	return path + "." + t.Name()
}

// valueType names a Go type in the table's words, queuing structs to walk.
func (w *walker) valueType(t reflect.Type) string {
	if leaf, ok := leafTypes[t]; ok {
		return leaf
	}
	if t.Kind() == reflect.Pointer {
		return w.valueType(t.Elem())
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		w.opaque[typeName(t)] = true
		return "raw"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return "[]" + w.valueType(t.Elem())
	case reflect.Map:
		return "map[]" + w.valueType(t.Elem())
	case reflect.Interface:
		return "raw"
	case reflect.Struct:
		name := typeName(t)
		if _, seen := w.types[name]; !seen {
			w.types[name] = nil
			w.pending = append(w.pending, t)
		}
		return "@" + name
	}
	fail("no table type for Go type %s", t)
	return ""
}

// fieldsOf lists a struct's JSON fields in declaration order, embedded structs without a name inlined.
func (w *walker) fieldsOf(t reflect.Type, index []int, inline bool) []field {
	var fields []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, options, _ := strings.Cut(tag, ",")
		at := append(append([]int{}, index...), i)
		if tag == "-" || (!sf.IsExported() && !sf.Anonymous) {
			continue
		}
		inner := sf.Type
		if inner.Kind() == reflect.Pointer {
			inner = inner.Elem()
		}
		if sf.Anonymous && name == "" && inner.Kind() == reflect.Struct && leafTypes[inner] == "" {
			fields = append(fields, w.fieldsOf(inner, at, true)...)
			continue
		}
		if name == "" {
			name = sf.Name
		}
		opts := "," + options + ","
		fields = append(fields, field{
			Name: name, Type: w.valueType(sf.Type), Pointer: sf.Type.Kind() == reflect.Pointer,
			OmitEmpty: strings.Contains(opts, ",omitempty,"), OmitZero: strings.Contains(opts, ",omitzero,"),
			Inline: inline, goType: sf.Type, index: at,
		})
	}
	return fields
}

// observe encodes the struct's zero value and one value per field with it set to a zero that
// is not nil, and checks each field against the rule the table states (see rules in the doc).
func observe(t reflect.Type, fields []field) []field {
	zero := encodeObject(reflect.New(t))
	for i := range fields {
		f := &fields[i]
		written, present := zero[f.Name]
		f.Dropped = !present
		if present {
			f.Zero = written
		}
		predicted := f.OmitZero || (f.OmitEmpty && (f.Pointer || !isStructValue(f.goType)))
		if predicted != f.Dropped {
			fail("%s.%s: the encoder %s its zero value, the rule says otherwise", typeName(t), f.Name, map[bool]string{true: "drops", false: "writes"}[f.Dropped])
		}
		checkSetZero(t, f)
	}
	return fields
}

// isStructValue: a value encoding/json's omitempty never omits (a struct, Quantity and times included).
func isStructValue(t reflect.Type) bool { return t.Kind() == reflect.Struct }

// checkSetZero: a pointer to a zero value is written; an empty non-nil list or map is omitted by omitempty.
func checkSetZero(t reflect.Type, f *field) {
	value := reflect.New(t)
	target := value.Elem().FieldByIndex(f.index)
	switch f.goType.Kind() {
	case reflect.Pointer:
		target.Set(reflect.New(f.goType.Elem()))
	case reflect.Slice:
		target.Set(reflect.MakeSlice(f.goType, 0, 0))
	case reflect.Map:
		target.Set(reflect.MakeMap(f.goType))
	default:
		return
	}
	_, present := encodeObject(value)[f.Name]
	if f.goType.Kind() == reflect.Pointer && !present && !f.OmitZero {
		fail("%s.%s: a pointer to a zero value is dropped", typeName(t), f.Name)
	}
	if f.goType.Kind() != reflect.Pointer && present == f.OmitEmpty {
		fail("%s.%s: an empty %s is %v with omitempty=%v", typeName(t), f.Name, f.goType.Kind(), present, f.OmitEmpty)
	}
}

func encodeObject(value reflect.Value) map[string]json.RawMessage {
	encoded, err := json.Marshal(value.Interface())
	if err != nil {
		fail("encoding %s: %v", value.Type(), err)
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(encoded, &object); err != nil {
		fail("decoding %s: %v", value.Type(), err)
	}
	return object
}

type kindList struct {
	Kinds map[string]map[string]string `json:"kinds"`
}

func main() {
	if len(os.Args) != 3 {
		fail("usage: go run . <schemas/kubernetes-1.36.json> <output.ts>")
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	var list kindList
	if err := json.Unmarshal(raw, &list); err != nil {
		fail("%s: %v", os.Args[1], err)
	}
	scheme := newScheme()
	w := &walker{types: map[string][]field{}, opaque: map[string]bool{}}
	kinds := map[string]string{}
	for groupVersion, names := range list.Kinds {
		gv, err := schema.ParseGroupVersion(groupVersion)
		if err != nil {
			fail("%s: %v", groupVersion, err)
		}
		for kind := range names {
			object, err := scheme.New(gv.WithKind(kind))
			if err != nil {
				fail("%s %s: %v", groupVersion, kind, err)
			}
			kinds[groupVersion+"/"+kind] = w.valueType(reflect.TypeOf(object))[1:]
		}
	}
	for len(w.pending) > 0 {
		t := w.pending[0]
		w.pending = w.pending[1:]
		w.types[typeName(t)] = observe(t, w.fieldsOf(t, nil, false))
	}
	checkStorage(scheme)
	if err := os.WriteFile(os.Args[2], render(kinds, w), 0o644); err != nil {
		fail("%v", err)
	}
}

// checkStorage: etcd keeps built-in objects as protobuf, which has no empty list or map apart
// from a missing one, so a list or map field without omitempty stored empty comes back `null`.
func checkStorage(scheme *runtime.Scheme) {
	codec := protobuf.NewSerializer(scheme, scheme)
	role := &rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}, Rules: []rbacv1.PolicyRule{}}
	var stored bytes.Buffer
	if err := codec.Encode(role, &stored); err != nil {
		fail("protobuf: %v", err)
	}
	back, _, err := codec.Decode(stored.Bytes(), nil, nil)
	if err != nil {
		fail("protobuf: %v", err)
	}
	if written := encodeObject(reflect.ValueOf(back))["rules"]; string(written) != "null" {
		fail("an empty list without omitempty came back from protobuf as %s, not null", written)
	}
}

func render(kinds map[string]string, w *walker) []byte {
	var out bytes.Buffer
	out.WriteString("// Generated by tools/go-types (npm run schemas:go-types) from k8s.io/api, k8s.io/apimachinery,\n")
	out.WriteString("// k8s.io/apiextensions-apiserver and k8s.io/kube-aggregator v0.36.3. Do not edit.\n")
	out.WriteString("// Opaque types (their own JSON, not descended): " + strings.Join(sortedKeys(w.opaque), ", ") + ".\n")
	out.WriteString("import type { GoTypeTable } from './go-type-table.js';\n\n")
	out.WriteString("export const GO_TYPES: GoTypeTable = {\n  kinds: {\n")
	for _, key := range sortedKeys(kinds) {
		fmt.Fprintf(&out, "    %s: %s,\n", quote(key), quote(kinds[key]))
	}
	out.WriteString("  },\n  types: {\n")
	for _, name := range sortedKeys(w.types) {
		fmt.Fprintf(&out, "    %s: [\n", quote(name))
		for _, f := range w.types[name] {
			fmt.Fprintf(&out, "      [%s, %s, %s", quote(f.Name), quote(f.Type), quote(flags(f)))
			if !f.Dropped {
				fmt.Fprintf(&out, ", %s", compact(f.Zero))
			}
			out.WriteString("],\n")
		}
		out.WriteString("    ],\n")
	}
	out.WriteString("  },\n};\n")
	return out.Bytes()
}

// flags: p pointer, e omitempty, z omitzero, i inlined from an embedded struct, d zero value dropped.
func flags(f field) string {
	var s strings.Builder
	for _, flag := range []struct {
		on   bool
		code string
	}{{f.Pointer, "p"}, {f.OmitEmpty, "e"}, {f.OmitZero, "z"}, {f.Inline, "i"}, {f.Dropped, "d"}} {
		if flag.on {
			s.WriteString(flag.code)
		}
	}
	return s.String()
}

func compact(raw json.RawMessage) string {
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		fail("%v", err)
	}
	return out.String()
}

func quote(s string) string {
	encoded, _ := json.Marshal(s)
	return "'" + strings.ReplaceAll(string(encoded[1:len(encoded)-1]), "'", "\\'") + "'"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-types: "+format+"\n", args...)
	os.Exit(1)
}
