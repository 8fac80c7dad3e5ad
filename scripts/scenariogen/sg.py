"""Building blocks for AutoHeal's incident scenario corpus.

Each module under scenarios/ describes one incident as a small program: the
services and pods involved, the source tree at the deployed revision, recent
commits, traffic (healthy and failing), log lines, metrics, Kubernetes
objects and the ground truth. This module turns those descriptions into the
files of the scenario format (see shared FORMAT.md): scenario.yaml,
traces.json, logs.json, metrics.json, k8s.json, changes.json and repo/.

Everything is deterministic: every random choice comes from a
random.Random seeded with the scenario name, so regenerating the corpus
yields byte-identical files.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import os
import random
import re
import shutil
import textwrap
import uuid

import yaml

UTC = dt.timezone.utc


def ts(s: str) -> dt.datetime:
    """Parses '2026-11-30T10:20:00Z' (or with fractional seconds)."""
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00")).astimezone(UTC)


def iso(t: dt.datetime, frac: int = 0) -> str:
    if frac:
        s = t.strftime("%Y-%m-%dT%H:%M:%S.%f")
        return s[: 20 + frac] + "Z"
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def us(t: dt.datetime) -> int:
    return int(round(t.timestamp() * 1_000_000))


def from_us(x: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(x / 1_000_000, UTC)


def dedent(s: str) -> str:
    s = textwrap.dedent(s)
    if s.startswith("\n"):
        s = s[1:]
    return s


class Svc:
    """A service as telemetry sees it: name, namespace, pods, runtime."""

    SDK = {
        "java": ("java", "1.44.1", "opentelemetry"),
        "go": ("go", "1.33.0", "opentelemetry"),
        "python": ("python", "1.29.0", "opentelemetry"),
        "nodejs": ("nodejs", "1.30.1", "opentelemetry"),
        "dotnet": ("dotnet", "1.10.0", "opentelemetry"),
        "rust": ("rust", "0.27.1", "opentelemetry"),
        "proxy": (None, None, None),
    }

    def __init__(self, sc: "Scenario", name: str, ns: str, lang: str, version: str = "1.0.0",
                 pods: list[str] | None = None, npods: int = 2, deploy: str | None = None,
                 runtime: str | None = None, extra: dict | None = None):
        self.sc = sc
        self.name = name
        self.ns = ns
        self.lang = lang
        self.version = version
        self.deploy = deploy or name.lower().replace("_", "-")
        self.rs_hash = sc.pod_hash()
        self.pods = pods or [f"{self.deploy}-{self.rs_hash}-{sc.suffix()}" for _ in range(npods)]
        self.runtime = runtime
        self.extra = extra or {}
        self.ips = {p: sc.pod_ip() for p in self.pods}

    def pod(self) -> str:
        return self.sc.rng.choice(self.pods)

    def process_tags(self, pod: str) -> list[dict]:
        if self.lang == "proxy":
            return kvs({"hostname": pod, "ip": self.ips.get(pod, self.sc.pod_ip())})
        lang, sdkv, _ = Svc.SDK[self.lang]
        t = {"host.name": pod, "k8s.namespace.name": self.ns, "k8s.pod.name": pod,
             "service.version": self.version, "telemetry.sdk.language": lang,
             "telemetry.sdk.name": "opentelemetry", "telemetry.sdk.version": sdkv}
        if self.runtime:
            t["process.runtime.version"] = self.runtime
        t.update(self.extra)
        return kvs(t)


def kv(k: str, v) -> dict:
    if isinstance(v, bool):
        return {"key": k, "type": "bool", "value": v}
    if isinstance(v, int):
        return {"key": k, "type": "int64", "value": v}
    if isinstance(v, float):
        return {"key": k, "type": "float64", "value": v}
    return {"key": k, "type": "string", "value": str(v)}


def kvs(d: dict) -> list[dict]:
    return [kv(k, v) for k, v in d.items() if v is not None]


class Trace:
    def __init__(self, sc: "Scenario", trace_id: str | None = None):
        self.sc = sc
        self.id = trace_id or sc.hex(32)
        self.spans: list[dict] = []
        self.procs: dict[tuple, str] = {}
        self.proc_bodies: dict[str, dict] = {}
        sc.traces.append(self)

    def _pid(self, svc: Svc, pod: str) -> str:
        key = (svc.name, pod)
        if key not in self.procs:
            pid = f"p{len(self.procs) + 1}"
            self.procs[key] = pid
            self.proc_bodies[pid] = {"serviceName": svc.name, "tags": svc.process_tags(pod)}
        return self.procs[key]

    def span(self, svc: Svc, op: str, start: int, dur: int, parent: dict | None = None, kind: str = "server",
             tags: dict | None = None, pod: str | None = None, error: str | None = None, err_mode: str = "otel",
             events: list[dict] | None = None, span_id: str | None = None) -> dict:
        """Adds a span. start/dur are microseconds. error is the status description
        (None for ok); err_mode is 'otel' (otel.status_code), 'tag' (error=true) or 'both'."""
        if pod is None:
            if parent is not None and parent.get("_svc") == svc.name:
                pod = parent["_pod"]
            else:
                pod = svc.pod()
        t = dict(tags or {})
        t["span.kind"] = kind
        if error is not None:
            if err_mode in ("otel", "both"):
                t["otel.status_code"] = "ERROR"
                if error:
                    t["otel.status_description"] = error
            if err_mode in ("tag", "both"):
                t["error"] = True
        s = {"traceID": self.id, "spanID": span_id or self.sc.hex(16), "flags": 1, "operationName": op,
             "references": [] if parent is None else [
                 {"refType": "CHILD_OF", "traceID": self.id, "spanID": parent["spanID"]}],
             "startTime": int(start), "duration": max(1, int(dur)), "tags": kvs(t),
             "logs": events or [], "processID": self._pid(svc, pod), "warnings": None,
             "_svc": svc.name, "_pod": pod}
        self.spans.append(s)
        return s

    def body(self) -> dict:
        # A synchronous parent always outlives its children: stretch parents
        # whose computed duration came out shorter (retries, backoff).
        by = {s["spanID"]: s for s in self.spans}
        for s in reversed(self.spans):
            for r in s["references"]:
                if r["refType"] != "CHILD_OF":
                    continue
                p = by[r["spanID"]]
                end = s["startTime"] + s["duration"]
                if end > p["startTime"] + p["duration"]:
                    p["duration"] = end - p["startTime"] + 150
        spans = []
        for s in self.spans:
            spans.append({k: v for k, v in s.items() if not k.startswith("_")})
        return {"traceID": self.id, "spans": spans, "processes": self.proc_bodies, "warnings": None}

    @property
    def start(self) -> int:
        return min(s["startTime"] for s in self.spans)


def exc_event(t: int, etype: str | None, msg: str, stack: str | None = None, style: str = "otel") -> dict:
    """A span event for an exception. style: 'otel' (event=exception), 'Error'
    (event named Error), 'msgonly' (only exception.message), 'ot' (OpenTracing
    error.kind/message/stack)."""
    if style == "otel":
        f = {"event": "exception", "exception.type": etype, "exception.message": msg,
             "exception.stacktrace": stack, "exception.escaped": "False" if stack else None}
    elif style == "Error":
        f = {"event": "Error", "exception.type": etype, "exception.message": msg, "exception.stacktrace": stack}
    elif style == "msgonly":
        f = {"exception.message": msg}
    elif style == "ot":
        f = {"event": "error", "error.kind": etype, "error.object": etype, "message": msg, "stack": stack}
    else:
        raise ValueError(style)
    return {"timestamp": int(t), "fields": kvs(f)}


def plain_event(t: int, name: str, **attrs) -> dict:
    f = {"event": name}
    f.update(attrs)
    return {"timestamp": int(t), "fields": kvs(f)}


# Semantic-convention helpers -------------------------------------------------

def http_server(method: str, route: str, status: int, new: bool = True, target: str | None = None,
                host: str | None = None, port: int | None = None, scope: str | None = None, **extra) -> dict:
    if new:
        d = {"http.request.method": method, "http.route": route, "url.path": target or route,
             "url.scheme": "http", "http.response.status_code": status, "server.address": host,
             "server.port": port, "network.protocol.version": "1.1"}
    else:
        d = {"http.method": method, "http.route": route, "http.target": target or route, "http.scheme": "http",
             "http.status_code": status, "net.host.name": host, "net.host.port": port, "http.flavor": "1.1"}
    if scope:
        d = {"otel.scope.name": scope, **d}
    d.update(extra)
    return d


def http_client(method: str, url: str, status: int | None, new: bool = True, peer: str | None = None, **extra) -> dict:
    m = re.match(r"(https?)://([^/:]+)(?::(\d+))?(/.*)?", url)
    host, port = m.group(2), int(m.group(3) or (443 if m.group(1) == "https" else 80))
    if new:
        d = {"http.request.method": method, "url.full": url, "server.address": host, "server.port": port,
             "http.response.status_code": status}
    else:
        d = {"http.method": method, "http.url": url, "net.peer.name": host, "net.peer.port": port,
             "http.status_code": status}
    if peer:
        d["peer.service"] = peer
    d.update(extra)
    return d


def grpc(service: str, method: str, code: int, server: str | None = None, port: int | None = None, **extra) -> dict:
    d = {"rpc.system": "grpc", "rpc.service": service, "rpc.method": method, "rpc.grpc.status_code": code,
         "server.address": server, "server.port": port}
    d.update(extra)
    return d


def db(system: str, stmt: str, name: str | None = None, peer: str | None = None, port: int | None = None,
       op: str | None = None, new: bool = True, **extra) -> dict:
    if new:
        d = {"db.system": system, "db.namespace": name, "db.query.text": stmt, "db.operation.name": op,
             "server.address": peer, "server.port": port}
    else:
        d = {"db.system": system, "db.name": name, "db.statement": stmt, "db.operation": op,
             "net.peer.name": peer, "net.peer.port": port}
    d.update(extra)
    return d


def code_loc(path: str, line: int, func: str, new: bool = True) -> dict:
    if new:
        return {"code.file.path": path, "code.line.number": line, "code.function.name": func}
    return {"code.filepath": path, "code.lineno": line, "code.function": func}


# Kubernetes ------------------------------------------------------------------

def container_spec(name: str, image: str, port: int | None = None, port_name: str = "http", env: dict | list | None = None,
                   env_from: list | None = None, requests: dict | None = None, limits: dict | None = None,
                   readiness: dict | None = None, liveness: dict | None = None, args: list | None = None,
                   command: list | None = None, volume_mounts: list | None = None) -> dict:
    c = {"name": name, "image": image}
    if command:
        c["command"] = command
    if args:
        c["args"] = args
    if port:
        c["ports"] = [{"name": port_name, "containerPort": port, "protocol": "TCP"}]
    if env_from:
        c["envFrom"] = env_from
    if env:
        if isinstance(env, dict):
            c["env"] = [{"name": k, "value": str(v)} for k, v in env.items()]
        else:
            c["env"] = env
    res = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    c["resources"] = res
    if readiness:
        c["readinessProbe"] = readiness
    if liveness:
        c["livenessProbe"] = liveness
    if volume_mounts:
        c["volumeMounts"] = volume_mounts
    c.update({"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
              "imagePullPolicy": "IfNotPresent"})
    return c


def http_probe(path: str, port, period: int = 10, initial: int = 0, timeout: int = 1, failure: int = 3) -> dict:
    p = {"httpGet": {"path": path, "port": port, "scheme": "HTTP"}, "periodSeconds": period,
         "timeoutSeconds": timeout, "successThreshold": 1, "failureThreshold": failure}
    if initial:
        p["initialDelaySeconds"] = initial
    return p


class K8s:
    def __init__(self, sc: "Scenario"):
        self.sc = sc
        self.items: list[dict] = []
        self.rv = sc.rng.randint(40_000_000, 90_000_000)

    def _rv(self) -> str:
        self.rv += self.sc.rng.randint(1, 5000)
        return str(self.rv)

    def meta(self, name: str, ns: str | None, created: dt.datetime, labels: dict | None = None,
             annotations: dict | None = None, **extra) -> dict:
        m = {"name": name}
        if ns:
            m["namespace"] = ns
        m.update({"uid": self.sc.uuid(), "resourceVersion": self._rv(), "creationTimestamp": iso(created)})
        if labels:
            m["labels"] = labels
        if annotations:
            m["annotations"] = annotations
        m.update(extra)
        return m

    def deployment(self, svc: Svc, containers: list[dict], replicas: int, created: dt.datetime,
                   updated: dt.datetime, revision: int, ready: int | None = None, labels: dict | None = None,
                   conditions: list | None = None, volumes: list | None = None, annotations: dict | None = None,
                   updated_replicas: int | None = None, node_selector: dict | None = None) -> dict:
        labels = labels or {"app.kubernetes.io/name": svc.deploy}
        sel = {k: v for k, v in labels.items() if k in ("app", "app.kubernetes.io/name")} or labels
        ready = replicas if ready is None else ready
        ann = {"deployment.kubernetes.io/revision": str(revision)}
        ann.update(annotations or {})
        spec = {"containers": containers, "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst", "serviceAccountName": svc.deploy, "schedulerName": "default-scheduler"}
        if volumes:
            spec["volumes"] = volumes
        if node_selector:
            spec["nodeSelector"] = node_selector
        conds = conditions or [
            {"type": "Available", "status": "True" if ready > 0 else "False",
             "reason": "MinimumReplicasAvailable" if ready >= replicas - 1 else "MinimumReplicasUnavailable",
             "message": "Deployment has minimum availability." if ready >= replicas - 1 else "Deployment does not have minimum availability.",
             "lastUpdateTime": iso(updated), "lastTransitionTime": iso(created + dt.timedelta(minutes=2))},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
             "message": f'ReplicaSet "{svc.deploy}-{svc.rs_hash}" has successfully progressed.',
             "lastUpdateTime": iso(updated), "lastTransitionTime": iso(created)}]
        d = {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": self.meta(svc.deploy, svc.ns, created, labels, ann, generation=revision),
             "spec": {"replicas": replicas, "selector": {"matchLabels": sel},
                      "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
                      "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600,
                      "template": {"metadata": {"labels": labels}, "spec": spec}},
             "status": {"observedGeneration": revision, "replicas": replicas,
                        "updatedReplicas": replicas if updated_replicas is None else updated_replicas,
                        "readyReplicas": ready, "availableReplicas": ready,
                        **({"unavailableReplicas": replicas - ready} if ready < replicas else {}),
                        "conditions": conds}}
        self.items.append(d)
        return d

    def replicaset(self, svc: Svc, rs_hash: str, containers: list[dict], replicas: int, ready: int,
                   created: dt.datetime, revision: int, labels: dict | None = None) -> dict:
        labels = dict(labels or {"app.kubernetes.io/name": svc.deploy})
        labels["pod-template-hash"] = rs_hash
        d = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
             "metadata": self.meta(f"{svc.deploy}-{rs_hash}", svc.ns, created, labels,
                                   {"deployment.kubernetes.io/revision": str(revision),
                                    "deployment.kubernetes.io/desired-replicas": str(replicas)},
                                   ownerReferences=[{"apiVersion": "apps/v1", "kind": "Deployment", "name": svc.deploy,
                                                     "uid": self.sc.uuid(), "controller": True, "blockOwnerDeletion": True}]),
             "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                      "template": {"metadata": {"labels": labels}, "spec": {"containers": containers}}},
             "status": {"replicas": replicas, "fullyLabeledReplicas": replicas, "readyReplicas": ready,
                        "availableReplicas": ready, "observedGeneration": 1}}
        self.items.append(d)
        return d

    def pod(self, svc: Svc, name: str, containers: list[dict], node: str, created: dt.datetime,
            state: dict | None = None, last: dict | None = None, restarts: int = 0, ready: bool = True,
            phase: str = "Running", labels: dict | None = None, rs_hash: str | None = None,
            qos: str = "Burstable", status_extra: dict | None = None, ip: str | None = None,
            conditions: list | None = None) -> dict:
        """state: {"running": {"startedAt": ...}} or {"waiting": {...}} or {"terminated": {...}}."""
        rs_hash = rs_hash or svc.rs_hash
        labels = dict(labels or {"app.kubernetes.io/name": svc.deploy})
        labels["pod-template-hash"] = rs_hash
        started = created + dt.timedelta(seconds=self.sc.rng.randint(3, 20))
        state = state or {"running": {"startedAt": iso(started)}}
        cs = []
        for i, c in enumerate(containers):
            st = {"name": c["name"], "state": state if i == 0 else {"running": {"startedAt": iso(started)}},
                  "lastState": (last or {}) if i == 0 else {}, "ready": ready if i == 0 else True,
                  "restartCount": restarts if i == 0 else 0, "image": c["image"],
                  "imageID": "" if "waiting" in state and state["waiting"].get("reason") in ("ImagePullBackOff", "ErrImagePull")
                  else c["image"].split(":")[0] + "@sha256:" + self.sc.hex(64),
                  "containerID": "containerd://" + self.sc.hex(64), "started": "running" in state}
            if "waiting" in state and i == 0:
                st.pop("containerID")
            cs.append(st)
        t_ready = iso(created + dt.timedelta(seconds=25))
        conds = conditions or [
            {"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": iso(created)},
            {"type": "Ready", "status": "True" if ready else "False", "lastProbeTime": None, "lastTransitionTime": t_ready,
             **({} if ready else {"reason": "ContainersNotReady", "message": f"containers with unready status: [{containers[0]['name']}]"})},
            {"type": "ContainersReady", "status": "True" if ready else "False", "lastProbeTime": None, "lastTransitionTime": t_ready,
             **({} if ready else {"reason": "ContainersNotReady", "message": f"containers with unready status: [{containers[0]['name']}]"})},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": iso(created)}]
        status = {"phase": phase, "conditions": conds, "hostIP": self.sc.node_ip(node), "podIP": ip or svc.ips.get(name) or self.sc.pod_ip(),
                  "startTime": iso(created), "containerStatuses": cs, "qosClass": qos}
        status.update(status_extra or {})
        p = {"apiVersion": "v1", "kind": "Pod",
             "metadata": self.meta(name, svc.ns, created, labels, None, generateName=f"{svc.deploy}-{rs_hash}-",
                                   ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{svc.deploy}-{rs_hash}",
                                                     "uid": self.sc.uuid(), "controller": True, "blockOwnerDeletion": True}]),
             "spec": {"containers": containers, "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                      "dnsPolicy": "ClusterFirst", "serviceAccountName": svc.deploy, "nodeName": node,
                      "schedulerName": "default-scheduler", "priority": 0,
                      "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                                      {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]},
             "status": status}
        self.items.append(p)
        return p

    def event(self, ns: str, kind: str, name: str, reason: str, message: str, first: dt.datetime,
              last: dt.datetime | None = None, count: int = 1, etype: str = "Normal", component: str = "kubelet",
              host: str | None = None, field_path: str | None = None, api_version: str = "v1") -> dict:
        e = {"apiVersion": "v1", "kind": "Event",
             "metadata": self.meta(f"{name}.{self.sc.hex(16)}", ns, first),
             "involvedObject": {"kind": kind, "name": name, "namespace": ns, "uid": self.sc.uuid(),
                                "apiVersion": api_version, "resourceVersion": self._rv(),
                                **({"fieldPath": field_path} if field_path else {})},
             "reason": reason, "message": message,
             "source": {"component": component, **({"host": host} if host else {})},
             "firstTimestamp": iso(first), "lastTimestamp": iso(last or first), "count": count, "type": etype,
             "eventTime": None, "reportingComponent": component, "reportingInstance": host or ""}
        self.items.append(e)
        return e

    def node(self, name: str, created: dt.datetime, mem_pressure: bool = False, transition: dt.datetime | None = None,
             capacity_mem: str = "16110464Ki", alloc_mem: str = "15059840Ki", cpu: str = "4",
             labels: dict | None = None, taints: list | None = None, instance: str = "m6i.xlarge") -> dict:
        tr = iso(transition or created)
        lb = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "node.kubernetes.io/instance-type": instance}
        lb.update(labels or {})
        conds = [
            {"type": "MemoryPressure", "status": "True" if mem_pressure else "False",
             "reason": "KubeletHasInsufficientMemory" if mem_pressure else "KubeletHasSufficientMemory",
             "message": "kubelet has insufficient memory available" if mem_pressure else "kubelet has sufficient memory available",
             "lastHeartbeatTime": iso(self.sc.now - dt.timedelta(seconds=40)), "lastTransitionTime": tr},
            {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure",
             "message": "kubelet has no disk pressure", "lastHeartbeatTime": iso(self.sc.now - dt.timedelta(seconds=40)),
             "lastTransitionTime": iso(created)},
            {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID",
             "message": "kubelet has sufficient PID available", "lastHeartbeatTime": iso(self.sc.now - dt.timedelta(seconds=40)),
             "lastTransitionTime": iso(created)},
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
             "lastHeartbeatTime": iso(self.sc.now - dt.timedelta(seconds=40)), "lastTransitionTime": iso(created)}]
        n = {"apiVersion": "v1", "kind": "Node", "metadata": self.meta(name, None, created, lb),
             "spec": {"providerID": f"aws:///eu-west-1a/i-0{self.sc.hex(16)}",
                      **({"taints": taints} if taints else {})},
             "status": {"capacity": {"cpu": cpu, "memory": capacity_mem, "pods": "58", "ephemeral-storage": "104845292Ki"},
                        "allocatable": {"cpu": str(int(cpu) * 1000 - 70) + "m", "memory": alloc_mem, "pods": "58",
                                        "ephemeral-storage": "95551679124"},
                        "conditions": conds,
                        "addresses": [{"type": "InternalIP", "address": self.sc.node_ip(name)}, {"type": "Hostname", "address": name}],
                        "nodeInfo": {"kubeletVersion": "v1.30.6-eks-7f9249a", "containerRuntimeVersion": "containerd://1.7.23",
                                     "kernelVersion": "6.1.115-126.197.amzn2023.x86_64", "osImage": "Amazon Linux 2023.6.20241121",
                                     "architecture": "amd64", "operatingSystem": "linux"}}}
        self.items.append(n)
        return n

    def configmap(self, name: str, ns: str, created: dt.datetime, data: dict, labels: dict | None = None) -> dict:
        c = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": self.meta(name, ns, created, labels), "data": data}
        self.items.append(c)
        return c

    def secret(self, name: str, ns: str, created: dt.datetime, keys: list[str], labels: dict | None = None,
               annotations: dict | None = None, stype: str = "Opaque") -> dict:
        """Secret metadata only: key names are kept, values are redacted."""
        s = {"apiVersion": "v1", "kind": "Secret", "metadata": self.meta(name, ns, created, labels, annotations),
             "type": stype, "data": {k: "REDACTED" for k in keys}}
        self.items.append(s)
        return s

    def raw(self, obj: dict) -> dict:
        self.items.append(obj)
        return obj

    def obj(self, api: str, kind: str, name: str, ns: str | None, created: dt.datetime, labels: dict | None = None,
            annotations: dict | None = None, **body) -> dict:
        """Any object: apiVersion, kind and metadata, then body's top-level fields (spec, status, rules...)."""
        o = {"apiVersion": api, "kind": kind, "metadata": self.meta(name, ns, created, labels, annotations)}
        o.update(body)
        self.items.append(o)
        return o

    def service(self, name: str, ns: str, selector: dict, ports: list[tuple], created: dt.datetime,
                cluster_ip: str | None = None, labels: dict | None = None, annotations: dict | None = None) -> dict:
        """ports: (name, port, targetPort)."""
        ip = cluster_ip or f"10.96.{self.sc.rng.randint(1, 250)}.{self.sc.rng.randint(2, 250)}"
        return self.obj("v1", "Service", name, ns, created, labels, annotations,
                        spec={"type": "ClusterIP", "clusterIP": ip, "clusterIPs": [ip], "selector": selector,
                              "ports": [{"name": n, "port": p, "targetPort": t, "protocol": "TCP"} for n, p, t in ports],
                              "sessionAffinity": "None", "internalTrafficPolicy": "Cluster", "ipFamilies": ["IPv4"]},
                        status={"loadBalancer": {}})

    def endpoints(self, name: str, ns: str, created: dt.datetime, pods: list[tuple] | None = None,
                  ports: list[tuple] | None = None) -> dict:
        """pods: (ip, pod name, ready); ports: (name, port)."""
        subsets = []
        if pods:
            ready = [{"ip": ip, "targetRef": {"kind": "Pod", "name": n, "namespace": ns}} for ip, n, r in pods if r]
            notready = [{"ip": ip, "targetRef": {"kind": "Pod", "name": n, "namespace": ns}} for ip, n, r in pods if not r]
            sub = {"ports": [{"name": n, "port": p, "protocol": "TCP"} for n, p in (ports or [])]}
            if ready:
                sub["addresses"] = ready
            if notready:
                sub["notReadyAddresses"] = notready
            subsets.append(sub)
        o = {"apiVersion": "v1", "kind": "Endpoints", "metadata": self.meta(name, ns, created)}
        if subsets:
            o["subsets"] = subsets
        self.items.append(o)
        return o

    def body(self) -> dict:
        return {"apiVersion": "v1", "kind": "List", "items": self.items, "metadata": {"resourceVersion": ""}}


def running(t: dt.datetime) -> dict:
    return {"running": {"startedAt": iso(t)}}


def waiting(reason: str, message: str) -> dict:
    return {"waiting": {"reason": reason, "message": message}}


def terminated(reason: str, code: int, started: dt.datetime, finished: dt.datetime, sc: "Scenario", message: str | None = None) -> dict:
    t = {"exitCode": code, "reason": reason, "startedAt": iso(started), "finishedAt": iso(finished),
         "containerID": "containerd://" + sc.hex(64)}
    if message:
        t["message"] = message
    return {"terminated": t}


# Alertmanager ----------------------------------------------------------------

def alert(sc: "Scenario", labels: dict, annotations: dict, starts: dt.datetime, expr: str,
          prom: str = "http://prometheus-k8s-0:9090", status: str = "firing") -> dict:
    from urllib.parse import quote
    return {"status": status, "labels": labels, "annotations": annotations,
            "startsAt": starts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{sc.rng.randint(0, 999):03d}Z",
            "endsAt": "0001-01-01T00:00:00Z",
            "generatorURL": f"{prom}/graph?g0.expr={quote(expr, safe='')}&g0.tab=1",
            "fingerprint": sc.hex(16)}


def webhook(alerts: list[dict], group_by: list[str], receiver: str, external: str, route_key: str = "{}",
            truncated: int = 0) -> dict:
    def common(key):
        maps = [a[key] for a in alerts]
        out = {}
        for k, v in maps[0].items():
            if all(m.get(k) == v for m in maps):
                out[k] = v
        return out
    cl = common("labels")
    gl = {k: alerts[0]["labels"][k] for k in group_by if k in alerts[0]["labels"]}
    gk = route_key + ":{" + ", ".join(f'{k}="{v}"' for k, v in sorted(gl.items())) + "}"
    return {"version": "4", "groupKey": gk, "truncatedAlerts": truncated,
            "status": "firing" if any(a["status"] == "firing" for a in alerts) else "resolved",
            "receiver": receiver, "groupLabels": gl, "commonLabels": cl,
            "commonAnnotations": common("annotations"), "externalURL": external, "alerts": alerts}


# Git -------------------------------------------------------------------------

FUNC_RE = re.compile(r"^(\S.*[{:(]\s*$|\s*(def|func|class|public|private|protected|static|async|export|function|"
                     r"internal|module|namespace|resource|spec|data|apiVersion|kind)\b.*)")


def _shift(old: str, new: str, text: str) -> tuple[str, str]:
    """Edits are written indented inside the scenario module; strip the same
    number of leading spaces from old and new until new matches the file."""
    def strip(x, k):
        return "\n".join(l[k:] if l.startswith(" " * k) else l.lstrip(" ") for l in x.split("\n"))
    for k in range(1, 17):
        if strip(new, k) in text:
            return strip(old, k), strip(new, k)
    return old, new


def unified_patch(path: str, before: str, after: str) -> tuple[str, int, int]:
    a, b = before.splitlines(), after.splitlines()
    out, adds, dels = [], 0, 0
    diff = list(difflib.unified_diff(a, b, lineterm="", n=3))
    for line in diff[2:]:
        if line.startswith("@@"):
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            start = int(m.group(1))
            ctx = ""
            for i in range(start - 2, -1, -1):
                if i < len(a) and a[i] and FUNC_RE.match(a[i]) and not a[i].lstrip().startswith(("//", "#", "*")):
                    ctx = " " + a[i].strip()[:60]
                    break
            out.append(line + ctx)
        else:
            if line.startswith("+"):
                adds += 1
            elif line.startswith("-"):
                dels += 1
            out.append(line)
    return "\n".join(out), adds, dels


class Scenario:
    def __init__(self, name: str, now: str, summary: str, repo: str | None = None):
        self.name = name
        self.rng = random.Random(hashlib.sha256(name.encode()).digest())
        self.now = ts(now)
        self.summary = " ".join(dedent(summary).split())
        self.repo_name = repo
        self.traces: list[Trace] = []
        self.streams: dict[tuple, dict] = {}
        self.series: list[dict] = []
        self.k8s: K8s | None = None
        self.commits: list[dict] | None = None
        self.files: dict[str, str] | None = None
        self.trigger: dict = {}
        self.config: dict = {}
        self.truth: dict = {}
        self._ips: dict[str, str] = {}
        self._commit_state: dict[str, str] = {}

    # ids -----------------------------------------------------------------
    def hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def pod_hash(self) -> str:
        return "".join(self.rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(self.rng.choice([9, 10])))

    def suffix(self) -> str:
        return "".join(self.rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))

    def pod_ip(self) -> str:
        return f"10.42.{self.rng.randint(1, 9)}.{self.rng.randint(2, 250)}"

    def node_ip(self, node: str) -> str:
        if node not in self._ips:
            m = re.match(r"ip-(\d+)-(\d+)-(\d+)-(\d+)", node)
            self._ips[node] = ".".join(m.groups()) if m else f"10.0.{self.rng.randint(1, 9)}.{self.rng.randint(2, 250)}"
        return self._ips[node]

    def jitter(self, t: dt.datetime, seconds: float) -> dt.datetime:
        return t + dt.timedelta(seconds=self.rng.uniform(-seconds, seconds))

    def times(self, start: str | dt.datetime, end: str | dt.datetime, n: int, sort: bool = True) -> list[dt.datetime]:
        s = ts(start) if isinstance(start, str) else start
        e = ts(end) if isinstance(end, str) else end
        span = (e - s).total_seconds()
        out = [s + dt.timedelta(seconds=self.rng.uniform(0, span), microseconds=self.rng.randint(0, 999_999)) for _ in range(n)]
        return sorted(out) if sort else out

    def at(self, s: str) -> dt.datetime:
        """'10:04:31' or '10:04:31.250' on the day of now, or a full ISO time."""
        if "T" in s:
            return ts(s)
        parts = s.split(":")
        h, m = int(parts[0]), int(parts[1])
        sec = float(parts[2]) if len(parts) > 2 else 0.0
        d = self.now.replace(hour=h, minute=m, second=int(sec), microsecond=int(round((sec % 1) * 1e6)))
        if d > self.now:
            d -= dt.timedelta(days=1)
        return d

    def svc(self, *a, **kw) -> Svc:
        return Svc(self, *a, **kw)

    def trace(self) -> Trace:
        return Trace(self)

    # logs ----------------------------------------------------------------
    def log(self, labels: dict, t: dt.datetime | int, line: str):
        if isinstance(t, int):
            ns = t * 1000 + self.rng.randint(0, 999)
        else:
            ns = us(t) * 1000 + self.rng.randint(0, 999)
        key = tuple(sorted(labels.items()))
        st = self.streams.setdefault(key, {"stream": dict(labels), "values": []})
        st["values"].append([str(ns), line])

    # metrics -------------------------------------------------------------
    def gauge(self, labels: dict, start: dt.datetime, end: dt.datetime, fn, step: int = 60, fmt=None):
        vals = []
        t = int(start.timestamp())
        t -= t % step
        while t <= end.timestamp():
            v = fn(dt.datetime.fromtimestamp(t, UTC))
            if v is not None:
                vals.append([t, fmt(v) if fmt else fmtnum(v)])
            t += step
        self.series.append({"metric": labels, "values": vals})

    def counter(self, labels: dict, start: dt.datetime, end: dt.datetime, rate_fn, initial: float = 0, step: int = 60,
                resets: list[dt.datetime] | None = None, integer: bool = True):
        vals = []
        t = int(start.timestamp())
        t -= t % step
        acc = initial
        resets = sorted(resets or [])
        while t <= end.timestamp():
            now = dt.datetime.fromtimestamp(t, UTC)
            r = rate_fn(now)
            acc += max(0.0, r * step * self.rng.uniform(0.9, 1.1))
            if resets and now >= resets[0]:
                acc = r * step * self.rng.uniform(0.1, 0.9)
                resets.pop(0)
            vals.append([t, str(int(acc)) if integer else fmtnum(acc)])
            t += step
        self.series.append({"metric": labels, "values": vals})

    # repo and changes ------------------------------------------------------
    def file(self, path: str, text: str):
        if self.files is None:
            self.files = {}
        self.files[path] = dedent(text)

    def line(self, path: str, snippet: str, nth: int = 1) -> int:
        lines = self.files[path].splitlines()
        hits = [i + 1 for i, l in enumerate(lines) if snippet in l]
        if len(hits) < nth:
            raise AssertionError(f"{self.name}: {snippet!r} not found in {path}")
        if nth == 1 and len(hits) > 1:
            raise AssertionError(f"{self.name}: {snippet!r} is ambiguous in {path}: lines {hits}")
        return hits[nth - 1]

    def commit(self, when: str | dt.datetime, author: tuple[str, str, str], message: str, edits: list[tuple],
               merged_by_github: bool = False, sha: str | None = None) -> dict:
        """Declares commits newest first. edits: (path, old, new) where the file
        after this commit contains `new` (the working state starts from repo/);
        (path, None, None) marks a file added by this commit."""
        if self.commits is None:
            self.commits = []
        t = ts(when) if isinstance(when, str) else when
        name, email, login = author
        sha = sha or self.hex(40)
        files = []
        order, per = [], {}
        for path, old, new in edits:
            if path not in per:
                order.append(path)
                per[path] = []
            per[path].append((old, new))
        for path in order:
            after = self._commit_state.get(path, self.files.get(path, "") if self.files else "")
            before, status = after, "modified"
            for old, new in per[path]:
                if old is None and new is None:
                    before, status = "", "added"
                    continue
                if new not in before:
                    old, new = _shift(old, new, before)
                if new not in before:
                    raise AssertionError(f"{self.name}: commit edit {new!r} not in {path}")
                if before.count(new) != 1:
                    raise AssertionError(f"{self.name}: commit edit {new!r} ambiguous in {path}")
                before = before.replace(new, old)
            self._commit_state[path] = before
            patch, adds, dels = unified_patch(path, before, after)
            base = f"https://github.com/{self.repo_name}"
            files.append({"sha": self.hex(40), "filename": path, "status": status, "additions": adds,
                          "deletions": dels, "changes": adds + dels,
                          "blob_url": f"{base}/blob/{sha}/{path}", "raw_url": f"{base}/raw/{sha}/{path}",
                          "contents_url": f"https://api.github.com/repos/{self.repo_name}/contents/{path}?ref={sha}",
                          "patch": patch})
        committer = ("GitHub", "noreply@github.com") if merged_by_github else (name, email)
        c = {"sha": sha, "node_id": "C_kwDO" + self.hex(24),
             "commit": {"author": {"name": name, "email": email, "date": iso(t)},
                        "committer": {"name": committer[0], "email": committer[1], "date": iso(t)},
                        "message": dedent(message).strip(),
                        "tree": {"sha": self.hex(40), "url": ""}, "url": "", "comment_count": 0,
                        "verification": {"verified": merged_by_github, "reason": "valid" if merged_by_github else "unsigned",
                                         "signature": None, "payload": None}},
             "url": f"https://api.github.com/repos/{self.repo_name}/commits/{sha}",
             "html_url": f"https://github.com/{self.repo_name}/commit/{sha}",
             "comments_url": f"https://api.github.com/repos/{self.repo_name}/commits/{sha}/comments",
             "author": {"login": login, "id": self.rng.randint(1_000_000, 190_000_000), "type": "User" if "[bot]" not in login else "Bot",
                        "html_url": f"https://github.com/{login}"},
             "committer": {"login": login if not merged_by_github else "web-flow", "id": self.rng.randint(1_000_000, 190_000_000),
                           "type": "User", "html_url": f"https://github.com/{login if not merged_by_github else 'web-flow'}"},
             "parents": [],
             "stats": {"total": sum(f["changes"] for f in files), "additions": sum(f["additions"] for f in files),
                       "deletions": sum(f["deletions"] for f in files)},
             "files": files}
        c["commit"]["tree"]["url"] = f"https://api.github.com/repos/{self.repo_name}/git/trees/{c['commit']['tree']['sha']}"
        c["commit"]["url"] = f"https://api.github.com/repos/{self.repo_name}/git/commits/{sha}"
        if self.commits:
            prev = self.commits[-1]
            prev["parents"] = [{"sha": sha, "url": f"https://api.github.com/repos/{self.repo_name}/commits/{sha}",
                                "html_url": f"https://github.com/{self.repo_name}/commit/{sha}"}]
        self.commits.append(c)
        return c

    # output --------------------------------------------------------------
    def write(self, root: str):
        out = os.path.join(root, self.name)
        if os.path.exists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        if self.commits:
            last = self.commits[-1]
            if not last["parents"]:
                p = self.hex(40)
                last["parents"] = [{"sha": p, "url": f"https://api.github.com/repos/{self.repo_name}/commits/{p}",
                                    "html_url": f"https://github.com/{self.repo_name}/commit/{p}"}]
            times = [ts(c["commit"]["author"]["date"]) for c in self.commits]
            assert times == sorted(times, reverse=True), f"{self.name}: commits must be newest first"
        doc = {"name": self.name, "summary": self.summary, "now": iso(self.now), "trigger": self.trigger,
               "config": self.config, "truth": self.truth}
        with open(os.path.join(out, "scenario.yaml"), "w") as f:
            yaml.safe_dump(doc, f, sort_keys=False, width=110, allow_unicode=True)
        if self.traces:
            data = sorted((t.body() for t in self.traces), key=lambda b: min(s["startTime"] for s in b["spans"]))
            dump(os.path.join(out, "traces.json"), {"data": data})
        if self.streams:
            streams = []
            for key in sorted(self.streams):
                st = self.streams[key]
                st["values"].sort(key=lambda v: int(v[0]))
                streams.append(st)
            dump(os.path.join(out, "logs.json"), {"streams": streams})
        if self.series:
            dump(os.path.join(out, "metrics.json"), {"series": self.series})
        if self.k8s is not None:
            dump(os.path.join(out, "k8s.json"), self.k8s.body())
        if self.commits is not None:
            dump(os.path.join(out, "changes.json"), self.commits)
        if self.files:
            for path, text in self.files.items():
                p = os.path.join(out, "repo", path)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write(text)


def dump(path: str, obj):
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"), ensure_ascii=False)
        f.write("\n")


def fmtnum(v: float) -> str:
    if abs(v - round(v)) < 1e-9 and abs(v) < 1e15:
        return str(int(round(v)))
    return f"{v:.6g}" if abs(v) < 1e6 else str(int(v))


def between(t: dt.datetime, a: dt.datetime, b: dt.datetime) -> bool:
    return a <= t < b


def ramp(t: dt.datetime, a: dt.datetime, b: dt.datetime, v0: float, v1: float) -> float:
    if t <= a:
        return v0
    if t >= b:
        return v1
    return v0 + (v1 - v0) * (t - a).total_seconds() / (b - a).total_seconds()


def workload(k: K8s, svc: Svc, ctr: dict, nodes: list[str], created: dt.datetime, rollout: dt.datetime,
             revision: int, labels: dict | None = None, pod_states: dict | None = None, replicas: int | None = None,
             ready: int | None = None, qos: str = "Burstable") -> None:
    """Deployment + current ReplicaSet + pods. pod_states maps a pod index to
    keyword overrides of K8s.pod (state, last, restarts, ready, phase)."""
    labels = labels or {"app.kubernetes.io/name": svc.deploy}
    n = len(svc.pods)
    pod_states = pod_states or {}
    nready = sum(1 for i in range(n) if pod_states.get(i, {}).get("ready", True))
    k.deployment(svc, [ctr], replicas or n, created, rollout + dt.timedelta(seconds=40), revision,
                 ready=nready if ready is None else ready, labels=labels)
    k.replicaset(svc, svc.rs_hash, [ctr], replicas or n, nready, rollout, revision, labels=labels)
    for i, p in enumerate(svc.pods):
        kw = dict(pod_states.get(i, {}))
        k.pod(svc, p, [ctr], nodes[i % len(nodes)], kw.pop("created", rollout + dt.timedelta(seconds=7 * i + 2)),
              labels=labels, qos=qos, **kw)


def java_log_spring(t: dt.datetime, level: str, app: str, thread: str, logger: str, msg: str,
                    trace: str = "", span: str = "") -> str:
    corr = f"[{trace}-{span}]" if trace else "[]"
    return f"{iso(t, 3)} {level.upper():>5} 1 --- [{app}] [{thread:>15}] {corr} {logger:<40} : {msg}"


def http_chain(sc: "Scenario", t: dt.datetime, hops: list[dict], fail: dict | None = None, new: bool = True) -> tuple[Trace, list[dict]]:
    """Builds one request through a chain of HTTP services.

    hops: [{"svc": Svc, "route": "/x/{id}", "target": "/x/42", "method": "GET", "port": 8080,
            "scope": "...", "db": [(system, statement, peer, port, op)], "code": 200}, ...]
    fail: {"at": index of the failing hop, "msg": status description, "etype": exception type,
           "stack": stack trace, "codes": [status per hop], "style": exception event style,
           "err_mode": "otel"|"tag"|"both", "dur": duration of the failing hop in us}
    Returns the trace and the server spans (one per hop)."""
    tr = sc.trace()
    st = us(t)
    n = len(hops)
    fat = fail["at"] if fail else None
    durs = []
    for i, h in enumerate(hops):
        if fail and i == fat:
            durs.append(fail.get("dur", sc.rng.randint(4_000, 12_000)))
        elif fail and i > fat:
            durs.append(0)
        else:
            durs.append(h.get("dur", sc.rng.randint(6_000, 30_000)))
    # total durations: each hop contains the next one
    tot = [0] * n
    acc = 0
    for i in range(n - 1, -1, -1):
        if fail and i > fat:
            continue
        acc = durs[i] + (acc + 1_500 if acc else 0)
        tot[i] = acc
    spans = []
    parent = None
    cur = st
    for i, h in enumerate(hops):
        if fail and i > fat:
            break
        svc = h["svc"]
        code = (fail["codes"][i] if fail else h.get("code", 200))
        err = None
        if fail and i <= fat:
            err = fail["msg"] if i == fat else fail.get("up_msg", "")
        method = h.get("method", "GET")
        if parent is not None:
            prev = hops[i - 1]["svc"]
            url = f"http://{svc.deploy}.{svc.ns}.svc:{h.get('port', 8080)}{h.get('target', h['route'])}"
            c = sc.trace_client = tr.span(prev, method, cur, tot[i] + 800, parent=parent, kind="client",
                                          error=("" if err is not None else None), err_mode=(fail or {}).get("err_mode", "otel"),
                                          tags=http_client(method, url, code, new=new, peer=svc.name))
            parent = c
            cur += 400
        events = None
        if fail and i == fat and fail.get("stack") is not None:
            events = [exc_event(cur + tot[i] - 600, fail.get("etype"), fail.get("exc_msg", fail["msg"]), fail["stack"],
                                fail.get("style", "otel"))]
        tags = http_server(method, h["route"], code, new=new, target=h.get("target"), host=svc.deploy, port=h.get("port", 8080),
                           scope=h.get("scope"), **h.get("extra", {}))
        if fail and i == fat and fail.get("code_loc"):
            tags.update(fail["code_loc"])
        s = tr.span(svc, h.get("op", f"{method} {h['route']}"), cur, tot[i], parent=parent, pod=h.get("pod"), error=err,
                    err_mode=(fail or {}).get("err_mode", "otel"), tags=tags, events=events)
        spans.append(s)
        off = cur + 500
        for d in h.get("db", []):
            system, stmt, peer, port, op = d
            dd = sc.rng.randint(500, 3_000)
            tr.span(svc, f"{op} {peer.split('.')[0]}" if system != "redis" else op, off, dd, parent=s, kind="client",
                    tags=db(system, stmt, None, peer, port, op, new=new))
            off += dd + 200
        parent = s
        cur = off + 300
    return tr, spans


def decoy_errors(sc: "Scenario", svc: Svc, start: dt.datetime, end: dt.datetime, n: int, lines: list[str],
                 labels=None, level: str = "error"):
    """A louder failure elsewhere: n error lines of another service, spread over the window."""
    for t in sc.times(start, end, n):
        p = svc.pod()
        lab = labels(svc.name, p, level) if labels else {"service_name": svc.name, "namespace": svc.ns, "pod": p, "level": level}
        sc.log(lab, t, sc.rng.choice(lines).replace("{t}", iso(t, 3)))
