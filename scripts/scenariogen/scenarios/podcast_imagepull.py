"""Podcast platform: kustomize newTag with a 'v' prefix that CI never publishes -> ImagePullBackOff, rollout stuck."""
import datetime as dt

from sg import *

NAME = "podcast-ingest-imagepullbackoff-tag"


def build():
    sc = Scenario(NAME, "2026-02-24T13:18:00Z", """
        The release commit at 12:41 set newTag: v2.14.0 for podcast-ingest in the prod kustomization, but CI
        publishes tags without the v prefix (2.14.0), so the new ReplicaSet's pod cannot pull its image
        (ErrImagePull / ImagePullBackOff: not found) and the rollout is stuck past its progress deadline; the
        two 2.13.2 pods keep serving, so the only user impact is that the chapters feature is not live. Fix the
        tag in k8s/apps/podcast-ingest/kustomization.yaml. The feed-poller's 429 warnings are unrelated.""",
                  repo="northwave-audio/platform")
    ns = "audio"
    ing = sc.svc("podcast-ingest", ns, "nodejs", version="2.13.2", npods=2)
    new_hash = sc.pod_hash()
    new_pod = f"podcast-ingest-{new_hash}-{sc.suffix()}"
    poller = sc.svc("feed-poller", ns, "go", npods=1)
    rollout = sc.at("12:49:02")

    kz = "k8s/apps/podcast-ingest/kustomization.yaml"
    sc.file(kz, """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: audio
        resources:
          - deployment.yaml
          - service.yaml
          - hpa.yaml
        images:
          - name: podcast-ingest
            newName: ghcr.io/northwave-audio/podcast-ingest
            newTag: v2.14.0
        configMapGenerator:
          - name: podcast-ingest-config
            literals:
              - CHAPTERS_ENABLED=true
              - MAX_EPISODE_MB=750
        """)
    sc.file(".github/workflows/release.yaml", """
        name: release
        on:
          push:
            tags: ["podcast-ingest-*"]
        jobs:
          image:
            runs-on: ubuntu-24.04
            steps:
              - uses: actions/checkout@v4
              - id: version
                run: echo "version=${GITHUB_REF_NAME#podcast-ingest-}" >> "$GITHUB_OUTPUT"
              - uses: docker/build-push-action@v6
                with:
                  context: services/podcast-ingest
                  push: true
                  tags: ghcr.io/northwave-audio/podcast-ingest:${{ steps.version.outputs.version }}
        """)
    ch = "services/podcast-ingest/src/chapters.js"
    sc.file(ch, """
        'use strict';

        // Parses ID3 CHAP frames into a chapter list for the player.
        function parseChapters(tags) {
          const frames = (tags && tags.chapter) || [];
          return frames
            .map((f) => ({ title: f.tags?.title ?? '', startMs: f.startTimeMs, endMs: f.endTimeMs }))
            .sort((a, b) => a.startMs - b.startMs);
        }

        module.exports = { parseChapters };
        """)
    L = sc.line(kz, "newTag: v2.14.0")
    sc.commit("2026-02-24T12:41:37Z", ("release-bot", "release-bot@northwave.fm", "northwave-release[bot]"),
              "release: podcast-ingest v2.14.0",
              [(kz, "    newTag: 2.13.2", "    newTag: v2.14.0"),
               (kz, "  - name: podcast-ingest-config\n    literals:\n      - MAX_EPISODE_MB=750",
                "  - name: podcast-ingest-config\n    literals:\n      - CHAPTERS_ENABLED=true\n      - MAX_EPISODE_MB=750")])
    sc.commit("2026-02-24T11:02:10Z", ("Zoe Clarke", "zoe@northwave.fm", "zclarke"),
              "podcast-ingest: parse ID3 chapter frames (#455)", [(ch, None, None)], merged_by_github=True)

    lab = lambda s, pod, lvl: {"service_name": s, "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("12:20"), sc.at("13:16")
    for t in sc.times(t0, t1, 120):
        p = ing.pod()
        ep = sc.rng.randint(10**6, 10**7)
        sc.log(lab("podcast-ingest", p, "info"), t, json.dumps({"level": 30, "time": int(t.timestamp() * 1000), "pid": 1, "hostname": p,
                                                                 "episodeId": ep, "bytes": sc.rng.randint(8e6, 3e8), "msg": "episode ingested",
                                                                 "version": "2.13.2"}))
    for t in sc.times(t0, t1, 30):
        sc.log(lab("feed-poller", poller.pods[0], "warn"), t,
               f'level=warn ts={iso(t, 3)} msg="feed fetch throttled" host=feeds.{sc.rng.choice(["libsyn", "anchor", "buzzsprout"])}.example status=429 retry_after=60s')

    k = sc.k8s = K8s(sc)
    nodes = ["gke-audio-prod-default-pool-4f1a2b3c-7kq2", "gke-audio-prod-default-pool-4f1a2b3c-z81m"]
    old = container_spec("podcast-ingest", "ghcr.io/northwave-audio/podcast-ingest:2.13.2", 3000,
                         env_from=[{"configMapRef": {"name": "podcast-ingest-config-8fk2m9h7bt"}}],
                         requests={"cpu": "250m", "memory": "384Mi"}, limits={"memory": "768Mi"},
                         readiness=http_probe("/ready", 3000, 5), liveness=http_probe("/live", 3000, 10, 10))
    new = dict(old, image="ghcr.io/northwave-audio/podcast-ingest:v2.14.0",
               envFrom=[{"configMapRef": {"name": "podcast-ingest-config-c6tb2k5f8m"}}])
    labels = {"app.kubernetes.io/name": "podcast-ingest", "app.kubernetes.io/part-of": "audio-platform"}
    prog_deadline = rollout + dt.timedelta(seconds=600)
    k.deployment(ing, [new], 2, ts("2025-04-02T09:00:00Z"), prog_deadline, 73, ready=2, labels=labels, updated_replicas=1,
                 conditions=[{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability.",
                              "lastUpdateTime": iso(ts("2026-02-19T10:00:00Z")), "lastTransitionTime": iso(ts("2026-02-19T10:00:00Z"))},
                             {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                              "message": f'ReplicaSet "podcast-ingest-{new_hash}" has timed out progressing.',
                              "lastUpdateTime": iso(prog_deadline), "lastTransitionTime": iso(prog_deadline)}])
    k.items[-1]["status"]["replicas"] = 3
    k.items[-1]["status"]["unavailableReplicas"] = 1
    k.replicaset(ing, new_hash, [new], 1, 0, rollout, 73, labels=labels)
    k.replicaset(ing, ing.rs_hash, [old], 2, 2, ts("2026-02-19T10:00:00Z"), 72, labels=labels)
    for i, p in enumerate(ing.pods):
        k.pod(ing, p, [old], nodes[i], ts("2026-02-19T10:00:00Z") + dt.timedelta(seconds=9 * i), labels=labels)
    k.pod(ing, new_pod, [new], nodes[1], rollout, labels=labels, rs_hash=new_hash, ready=False, phase="Pending",
          state=waiting("ImagePullBackOff", 'Back-off pulling image "ghcr.io/northwave-audio/podcast-ingest:v2.14.0"'))
    ref = "ghcr.io/northwave-audio/podcast-ingest:v2.14.0"
    k.event(ns, "Pod", new_pod, "Scheduled", f"Successfully assigned {ns}/{new_pod} to {nodes[1]}", rollout, component="default-scheduler")
    k.event(ns, "Pod", new_pod, "Pulling", f'Pulling image "{ref}"', rollout + dt.timedelta(seconds=1), sc.now - dt.timedelta(minutes=3), 7,
            host=nodes[1], field_path="spec.containers{podcast-ingest}")
    k.event(ns, "Pod", new_pod, "Failed", f'Failed to pull image "{ref}": rpc error: code = NotFound desc = failed to pull and unpack image "{ref}": '
            f'failed to resolve reference "{ref}": {ref}: not found', rollout + dt.timedelta(seconds=2), sc.now - dt.timedelta(minutes=3), 7,
            "Warning", host=nodes[1], field_path="spec.containers{podcast-ingest}")
    k.event(ns, "Pod", new_pod, "Failed", "Error: ErrImagePull", rollout + dt.timedelta(seconds=2), sc.now - dt.timedelta(minutes=3), 7,
            "Warning", host=nodes[1], field_path="spec.containers{podcast-ingest}")
    k.event(ns, "Pod", new_pod, "BackOff", f'Back-off pulling image "{ref}"', rollout + dt.timedelta(seconds=3), sc.now - dt.timedelta(seconds=40), 118,
            host=nodes[1], field_path="spec.containers{podcast-ingest}")
    k.event(ns, "Pod", new_pod, "Failed", "Error: ImagePullBackOff", rollout + dt.timedelta(seconds=3), sc.now - dt.timedelta(seconds=40), 118,
            "Warning", host=nodes[1], field_path="spec.containers{podcast-ingest}")
    k.event(ns, "Deployment", "podcast-ingest", "ScalingReplicaSet", f"Scaled up replica set podcast-ingest-{new_hash} from 0 to 1", rollout,
            component="deployment-controller", api_version="apps/v1")
    pctr = container_spec("feed-poller", "ghcr.io/northwave-audio/feed-poller:0.9.1", None, requests={"cpu": "50m", "memory": "64Mi"})
    workload(k, poller, pctr, nodes, ts("2025-04-02T09:00:00Z"), ts("2026-02-10T09:00:00Z"), 12, labels={"app.kubernetes.io/name": "feed-poller"})
    k.configmap("podcast-ingest-config-c6tb2k5f8m", ns, rollout - dt.timedelta(seconds=2), {"CHAPTERS_ENABLED": "true", "MAX_EPISODE_MB": "750"})
    k.configmap("podcast-ingest-config-8fk2m9h7bt", ns, ts("2026-02-19T09:59:50Z"), {"MAX_EPISODE_MB": "750"})

    sc.trigger = {"mention": "podcast-ingest rollout stuck for ~20 min, argo shows Progressing forever and the chapters thing isnt live. anyone?"}
    sc.config = {"repo": "northwave-audio/platform", "namespace": ns}
    sc.truth = {"bucket": "infrastructure", "service": "podcast-ingest", "error_type": "config", "file": kz, "line": L,
                "line_tolerance": 1, "fix_keywords": ["newTag", "2.14.0", "tag", "image"]}
    return sc
