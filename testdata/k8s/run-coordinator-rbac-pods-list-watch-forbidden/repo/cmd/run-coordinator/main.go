package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/quarry/pipelines-control/internal/coordinator"
	"github.com/quarry/pipelines-control/internal/leader"
	"github.com/quarry/pipelines-control/internal/store"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	cfg, err := rest.InClusterConfig()
	if err != nil {
		log.Error("in-cluster config", "err", err)
		os.Exit(1)
	}
	kc := kubernetes.NewForConfigOrDie(cfg)
	db, err := store.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Error("open store", "err", err)
		os.Exit(1)
	}
	ns := os.Getenv("POD_NAMESPACE")

	go serveHealth(log) // liveness/readiness: process is up

	leader.Run(ctx, kc, ns, "run-coordinator", log, func(ctx context.Context) {
		factory := informers.NewSharedInformerFactoryWithOptions(kc, 10*time.Minute, informers.WithNamespace(ns))
		jobs := factory.Batch().V1().Jobs()
		// Pods of run Jobs: used to report container exit reasons (OOMKilled, Error) on failed runs.
		pods := factory.Core().V1().Pods()
		c := coordinator.New(db, kc, ns, jobs.Lister(), pods.Lister(), log)
		jobs.Informer().AddEventHandler(c.JobHandler())
		pods.Informer().AddEventHandler(c.PodHandler())
		factory.Start(ctx.Done())

		log.Info("waiting for informer caches to sync", "informers", []string{"jobs", "pods"})
		synced := make(chan struct{})
		go func() {
			cache.WaitForCacheSync(ctx.Done(), jobs.Informer().HasSynced, pods.Informer().HasSynced)
			close(synced)
		}()
		for {
			select {
			case <-synced:
				log.Info("informer caches synced, starting dispatch loop")
				c.Run(ctx)
				return
			case <-time.After(time.Minute):
				log.Warn("informer caches not synced yet, dispatch loop not started",
					"jobs_synced", jobs.Informer().HasSynced(), "pods_synced", pods.Informer().HasSynced())
			case <-ctx.Done():
				return
			}
		}
	})
}
