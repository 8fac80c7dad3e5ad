"""Ride-hailing geofence service (Go): per-request cache keys never evicted -> heap grows until OOMKilled. A code bug that looks like infrastructure."""
import datetime as dt

from sg import *

NAME = "geofence-unbounded-cache-oomkilled"


def build():
    sc = Scenario(NAME, "2026-10-02T21:40:00Z", """
        The 12:30 geofence-svc commit memoises polygon lookups in a package-level map keyed by the rider's
        raw coordinates (lat,lng rounded to 6 decimals), which are practically unique per request and are never
        evicted. The heap grows linearly with traffic (~150-200 MiB/h per pod) from the 12:52 rollout until the pods
        reach the unchanged 1Gi limit and are OOMKilled in the evening; pricing and dispatch then see connection
        refused / UNAVAILABLE from geofence-svc. The limit is not the cause (memory was flat at ~180Mi for
        months); the fix is to bound the cache (LRU / key by H3 cell) in internal/zones/lookup.go. The
        surge-pricing config commit and the node autoscaler events are noise.""", repo="hopper-mobility/geo")
    ns = "geo"
    geo = sc.svc("geofence-svc", ns, "go", version="5.8.0", runtime="go1.23.1", npods=3)
    pricing = sc.svc("pricing", "marketplace", "java", npods=2)
    rollout = sc.at("12:52:00")

    lk = "geofence-svc/internal/zones/lookup.go"
    sc.file(lk, """
        package zones

        import (
        	"fmt"
        	"sync"

        	"github.com/hopper-mobility/geo/geofence-svc/internal/polygon"
        )

        // Index answers "which service zones contain this point".
        type Index struct {
        	tree *polygon.RTree
        }

        var (
        	memoMu sync.RWMutex
        	memo   = map[string][]ZoneID{}
        )

        func key(lat, lng float64) string {
        	return fmt.Sprintf("%.6f,%.6f", lat, lng)
        }

        // Lookup returns the zones containing (lat, lng), memoised because the
        // point-in-polygon test dominates CPU at peak.
        func (ix *Index) Lookup(lat, lng float64) []ZoneID {
        	k := key(lat, lng)
        	memoMu.RLock()
        	z, ok := memo[k]
        	memoMu.RUnlock()
        	if ok {
        		return z
        	}
        	z = ix.tree.Containing(polygon.Point{Lat: lat, Lng: lng})
        	memoMu.Lock()
        	memo[k] = z
        	memoMu.Unlock()
        	return z
        }
        """)
    sc.file("deploy/geofence-svc/values.yaml", """
        replicaCount: 3
        image:
          repository: ghcr.io/hopper-mobility/geofence-svc
          tag: 5.8.0
        env:
          GOMEMLIMIT: 900MiB
        resources:
          requests:
            cpu: 500m
            memory: 512Mi
          limits:
            memory: 1Gi
        """)
    sc.file("pricing/src/main/resources/surge.yaml", """
        surge:
          max-multiplier: 2.2
          cooldown: 90s
          zones:
            airport-lis: { floor: 1.2 }
        """)
    L = sc.line(lk, "memo[k] = z")
    sc.commit("2026-10-02T15:10:40Z", ("Chloé Bernard", "chloe@hopper.app", "cbernard"), "pricing: airport surge floor 1.2",
              [("pricing/src/main/resources/surge.yaml", "  cooldown: 90s\n", "  cooldown: 90s\n  zones:\n    airport-lis: { floor: 1.2 }\n")])
    sc.commit("2026-10-02T12:30:18Z", ("Kenji Watanabe", "kenji@hopper.app", "kwatanabe"),
              """geofence: memoise zone lookups (CPU -40% in the load test)

              pprof showed polygon.Containing at 62% of CPU during the Friday peak.""",
              [(lk, """// Lookup returns the zones containing (lat, lng).
func (ix *Index) Lookup(lat, lng float64) []ZoneID {
	return ix.tree.Containing(polygon.Point{Lat: lat, Lng: lng})
}""", """// Lookup returns the zones containing (lat, lng), memoised because the
// point-in-polygon test dominates CPU at peak.
func (ix *Index) Lookup(lat, lng float64) []ZoneID {
	k := key(lat, lng)
	memoMu.RLock()
	z, ok := memo[k]
	memoMu.RUnlock()
	if ok {
		return z
	}
	z = ix.tree.Containing(polygon.Point{Lat: lat, Lng: lng})
	memoMu.Lock()
	memo[k] = z
	memoMu.Unlock()
	return z
}"""), (lk, """import (
	"github.com/hopper-mobility/geo/geofence-svc/internal/polygon"
)""", """import (
	"fmt"
	"sync"

	"github.com/hopper-mobility/geo/geofence-svc/internal/polygon"
)"""), (lk, "", """var (
	memoMu sync.RWMutex
	memo   = map[string][]ZoneID{}
)

func key(lat, lng float64) string {
	return fmt.Sprintf("%.6f,%.6f", lat, lng)
}

""")], merged_by_github=True)

    limit = 1073741824
    # per-pod growth: traffic-shaped, kills when reaching the limit
    kills = {}
    for i, p in enumerate(geo.pods):
        slope = (2.7 + 0.25 * i) * 1e6  # bytes per minute at nominal traffic
        mem, t, ks = 185e6, rollout, []
        series = []
        while t <= sc.now:
            load = 0.6 + 0.8 * max(0.0, min(1.0, (t.hour + t.minute / 60 - 12) / 7))
            mem += slope * load * sc.rng.uniform(0.8, 1.2)
            if mem >= limit * 0.985:
                ks.append(t)
                mem = 175e6
            series.append((t, mem))
            t += dt.timedelta(minutes=1)
        kills[p] = (ks, series)
    lab = lambda s, pod, lvl, nsx=ns: {"container": s, "namespace": nsx, "pod": pod, "level": lvl}
    for p, (ks, _) in kills.items():
        for st in [rollout + dt.timedelta(seconds=sc.rng.randint(2, 40))] + [k_ + dt.timedelta(seconds=sc.rng.randint(15, 45)) for k_ in ks]:
            if st < sc.now:
                sc.log(lab("geofence-svc", p, "info"), st, json.dumps({"time": iso(st, 6), "level": "INFO", "msg": "loaded zone index",
                                                                        "zones": 1843, "polygons": 9120, "version": "5.8.0"}))
    t0, t1 = sc.at("12:40"), sc.at("21:38")
    all_kills = sorted(k_ for ks, _ in kills.values() for k_ in ks)
    for t in sc.times(t0, t1, 260):
        p = geo.pod()
        near = [k_ for k_ in all_kills if dt.timedelta(0) <= t - k_ < dt.timedelta(seconds=40)]
        if near:
            pp = pricing.pod()
            sc.log(lab("pricing", pp, "error", "marketplace"), t, java_log_spring(
                t, "ERROR", "pricing", f"grpc-default-executor-{sc.rng.randint(1, 9)}", "c.h.pricing.zone.ZoneClient",
                "zone lookup failed: io.grpc.StatusRuntimeException: UNAVAILABLE: io exception\nCaused by: io.netty.channel.AbstractChannel$AnnotatedConnectException: "
                f"finishConnect(..) failed: Connection refused: geofence-svc.geo.svc.cluster.local/{sc.pod_ip()}:9090"))
        else:
            sc.log(lab("geofence-svc", p, "debug"), t, json.dumps({"time": iso(t, 6), "level": "DEBUG", "msg": "lookup", "zones": sc.rng.randint(1, 3),
                                                                   "cache_size": sc.rng.randint(10**5, 10**6)}))
    for t in sc.times(t0, t1, 25):
        sc.log(lab("cluster-autoscaler", "cluster-autoscaler-6d8f7b9c5-x8k2l", "info", "kube-system"), t,
               f"I{t.strftime('%m%d %H:%M:%S.%f')}       1 static_autoscaler.go:588] No unschedulable pods")

    m1 = sc.at("21:39")
    for p, (ks, series) in kills.items():
        d = dict((int(t.timestamp()) - int(t.timestamp()) % 60, m) for t, m in series)
        sc.gauge({"__name__": "container_memory_working_set_bytes", "namespace": ns, "pod": p, "container": "geofence-svc", "job": "kubelet"},
                 sc.at("10:00"), m1, lambda t, d=d: d.get(int(t.timestamp()), 182e6 + sc.rng.uniform(-4e6, 4e6)))
        sc.gauge({"__name__": "kube_pod_container_resource_limits", "namespace": ns, "pod": p, "container": "geofence-svc", "resource": "memory",
                  "unit": "byte", "job": "kube-state-metrics"}, sc.at("10:00"), m1, lambda t: limit, step=300)
        sc.gauge({"__name__": "kube_pod_container_status_restarts_total", "namespace": ns, "pod": p, "container": "geofence-svc", "job": "kube-state-metrics"},
                 sc.at("10:00"), m1, lambda t, ks=ks: sum(1 for k_ in ks if k_ <= t), step=300)
        sc.gauge({"__name__": "go_memstats_heap_inuse_bytes", "namespace": ns, "pod": p, "job": "geofence-svc"}, sc.at("10:00"), m1,
                 lambda t, d=d: d.get(int(t.timestamp()), 182e6) * 0.82, step=300)
    sc.counter({"__name__": "grpc_client_handled_total", "grpc_service": "geo.v1.Geofence", "grpc_method": "Lookup", "grpc_code": "Unavailable",
                "job": "pricing", "namespace": "marketplace"}, sc.at("10:00"), m1,
               lambda t: 4.0 if any(dt.timedelta(0) <= t - k_ < dt.timedelta(seconds=60) for k_ in all_kills) else 0.001, initial=55)

    k = sc.k8s = K8s(sc)
    nodes = ["ip-10-8-1-120.eu-west-1.compute.internal", "ip-10-8-2-33.eu-west-1.compute.internal", "ip-10-8-3-9.eu-west-1.compute.internal"]
    ctr = container_spec("geofence-svc", "ghcr.io/hopper-mobility/geofence-svc:5.8.0", 9090, port_name="grpc", env={"GOMEMLIMIT": "900MiB"},
                         requests={"cpu": "500m", "memory": "512Mi"}, limits={"memory": "1Gi"},
                         readiness={"grpc": {"port": 9090, "service": ""}, "periodSeconds": 5, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3})
    states = {}
    for i, p in enumerate(geo.pods):
        ks = kills[p][0]
        if ks:
            states[i] = {"restarts": len(ks), "state": running(ks[-1] + dt.timedelta(seconds=20)),
                         "last": terminated("OOMKilled", 137, (ks[-2] if len(ks) > 1 else rollout) + dt.timedelta(seconds=20), ks[-1], sc)}
    workload(k, geo, ctr, nodes, ts("2023-11-11T10:00:00Z"), rollout, 118, labels={"app.kubernetes.io/name": "geofence-svc"}, pod_states=states)
    for i, p in enumerate(geo.pods):
        for k_ in kills[p][0]:
            k.event(ns, "Pod", p, "Pulled", 'Container image "ghcr.io/hopper-mobility/geofence-svc:5.8.0" already present on machine',
                    k_ + dt.timedelta(seconds=2), host=nodes[i], field_path="spec.containers{geofence-svc}")
    k.event("kube-system", "ConfigMap", "cluster-autoscaler-status", "ScaleDown", "Scale-down: removing empty node ip-10-8-4-77.eu-west-1.compute.internal",
            sc.at("20:14:02"), component="cluster-autoscaler")
    pk = max(geo.pods, key=lambda p: len(kills[p][0]))
    a = alert(sc, {"alertname": "KubeContainerOOMKilled", "container": "geofence-svc", "namespace": ns, "pod": pk, "job": "kube-state-metrics",
                   "severity": "warning", "team": "geo"},
              {"summary": "Container was OOM killed.", "description": f"Container geofence-svc in pod {ns}/{pk} has been OOMKilled {len(kills[pk][0])} times in the last 3 hours."},
              kills[pk][0][0] + dt.timedelta(minutes=1),
              '(kube_pod_container_status_restarts_total - kube_pod_container_status_restarts_total offset 10m >= 1) and ignoring (reason) min_over_time(kube_pod_container_status_last_terminated_reason{reason="OOMKilled"}[10m]) == 1')
    sc.trigger = {"alert": webhook([a], ["alertname", "namespace"], "autoheal-geo", "https://alertmanager.hopper.app", route_key='{}/{team="geo"}')}
    sc.config = {"repo": "hopper-mobility/geo", "log_service_label": "container"}
    sc.truth = {"bucket": "code_bug", "service": "geofence-svc", "error_type": "oom", "file": lk, "line": L,
                "line_tolerance": 3, "fix_keywords": ["LRU", "evict", "bound", "cache", "H3"]}
    return sc
