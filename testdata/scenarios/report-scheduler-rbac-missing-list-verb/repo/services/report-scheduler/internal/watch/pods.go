package watch

import (
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// Start runs a shared informer over the namespace's pods.
func Start(cs kubernetes.Interface, ns string, stop <-chan struct{}) informers.SharedInformerFactory {
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	f.Core().V1().Pods().Informer()
	f.Start(stop)
	return f
}
