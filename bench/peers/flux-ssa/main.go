// Command flux-ssa applies a set of objects with Flux's apply engine (github.com/fluxcd/pkg/ssa:
// ResourceManager.ApplyAllStaged, then WaitForSet, readiness by kstatus) and prints one JSON line:
// the time from its first request until every object was Current, the HTTP requests it sent and
// its own peak RSS. It is the peer of kreconcile's operator in `npm run bench:fleet` (bench/fleet.bench.ts),
// which writes the objects file so that both sides apply identical objects.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// countingTransport counts every HTTP request the client sends (watches, discovery and retries included).
type countingTransport struct {
	next  http.RoundTripper
	count *atomic.Int64
}

func (t countingTransport) RoundTrip(request *http.Request) (*http.Response, error) {
	t.count.Add(1)
	return t.next.RoundTrip(request)
}

type result struct {
	Objects    int     `json:"objects"`
	ElapsedMs  float64 `json:"elapsedMs"`
	ApplyMs    float64 `json:"applyMs"`
	Requests   int64   `json:"requests"`
	MaxRSSByte int64   `json:"maxRssBytes"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "flux-ssa: "+format+"\n", args...)
	os.Exit(1)
}

// readObjects decodes the objects file: a JSON array of Kubernetes objects, each with its namespace set.
func readObjects(path string) []*unstructured.Unstructured {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("cannot read the objects file: %v", err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		fail("%s is not a JSON array of objects: %v", path, err)
	}
	objects := make([]*unstructured.Unstructured, 0, len(raw))
	for i, content := range raw {
		object := &unstructured.Unstructured{Object: content}
		if object.GetKind() == "" || object.GetName() == "" {
			fail("%s: object %d has no kind or metadata.name", path, i)
		}
		objects = append(objects, object)
	}
	return objects
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path of the kubeconfig (required)")
	objectsPath := flag.String("objects", "", "JSON array of the objects to apply (required)")
	concurrency := flag.Int("concurrency", 4, "objects applied at once (ResourceManager.SetConcurrency)")
	qps := flag.Float64("qps", 50, "client requests per second (rest.Config.QPS)")
	burst := flag.Int("burst", 100, "client burst (rest.Config.Burst)")
	limiter := flag.String("limiter", "shared", "shared: one token bucket for every request (as kreconcile's flow control); per-kind: controller-runtime's default, a bucket per kind")
	interval := flag.Duration("interval", time.Second, "how often WaitForSet polls the objects' status")
	timeout := flag.Duration("timeout", 10*time.Minute, "how long WaitForSet waits for every object to be Current")
	flag.Parse()
	if *kubeconfig == "" || *objectsPath == "" {
		fail("usage: flux-ssa -kubeconfig PATH -objects FILE [-concurrency 4] [-qps 50] [-burst 100] [-limiter shared|per-kind] [-interval 1s]")
	}
	objects := readObjects(*objectsPath)

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("cannot load the kubeconfig %s: %v", *kubeconfig, err)
	}
	config.QPS = float32(*qps)
	config.Burst = *burst
	switch *limiter {
	case "shared":
		// controller-runtime builds a REST client per kind, each with its own bucket of QPS/Burst unless
		// the config carries one limiter: shared, the whole program gets the budget the operator gets.
		config.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(float32(*qps), *burst)
	case "per-kind":
	default:
		fail("-limiter=%s: expected shared or per-kind", *limiter)
	}
	var requests atomic.Int64
	config.WrapTransport = func(next http.RoundTripper) http.RoundTripper {
		return countingTransport{next: next, count: &requests}
	}

	started := time.Now()
	// The client's REST mapper discovers the API groups lazily, on the first object of each kind: timed, as the operator's discovery is.
	kube, err := client.New(config, client.Options{})
	if err != nil {
		fail("cannot create the client: %v", err)
	}
	poller := polling.NewStatusPoller(kube, kube.RESTMapper(), polling.Options{})
	manager := ssa.NewResourceManager(kube, poller, ssa.Owner{Field: "flux-bench", Group: "kustomize.toolkit.fluxcd.io"})
	manager.SetConcurrency(*concurrency)

	options := ssa.DefaultApplyOptions()
	options.WaitInterval = *interval
	options.WaitTimeout = *timeout
	changeSet, err := manager.ApplyAllStaged(context.Background(), objects, options)
	if err != nil {
		fail("apply failed: %v", err)
	}
	applied := time.Since(started)
	if err := manager.WaitForSet(changeSet.ToObjMetadataSet(), ssa.WaitOptions{Interval: *interval, Timeout: *timeout}); err != nil {
		fail("objects did not become ready: %v", err)
	}
	elapsed := time.Since(started)

	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		fail("getrusage: %v", err)
	}
	out, _ := json.Marshal(result{
		Objects:    len(objects),
		ElapsedMs:  float64(elapsed.Microseconds()) / 1000,
		ApplyMs:    float64(applied.Microseconds()) / 1000,
		Requests:   requests.Load(),
		MaxRSSByte: usage.Maxrss * 1024, // Linux reports kilobytes
	})
	fmt.Println(string(out))
}
