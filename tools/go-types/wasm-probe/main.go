//go:build js && wasm

// Command wasm-probe measures option (a) of docs/decisions/0021-storage-model-from-go-types.md: the real
// JSON decode then encode of k8s.io/api types (no defaulting), compiled to WebAssembly, called
// from Node as kstore(json). Build: GOOS=js GOARCH=wasm go build -ldflags "-s -w" -o probe.wasm ./wasm-probe
// Run: node wasm-probe/run.mjs "$(go env GOROOT)/lib/wasm/wasm_exec.js" probe.wasm
package main

import (
	"bytes"
	"fmt"
	"os"
	"syscall/js"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

func main() {
	scheme := runtime.NewScheme()
	_ = appsv1.AddToScheme(scheme)
	_ = corev1.AddToScheme(scheme)
	codec := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{})
	js.Global().Set("kstore", js.FuncOf(func(this js.Value, args []js.Value) any {
		obj, _, err := codec.Decode([]byte(args[0].String()), nil, nil)
		if err != nil {
			return err.Error()
		}
		var out bytes.Buffer
		if err := codec.Encode(obj, &out); err != nil {
			return err.Error()
		}
		return out.String()
	}))
	fmt.Fprintln(os.Stderr, "ready")
	select {}
}
