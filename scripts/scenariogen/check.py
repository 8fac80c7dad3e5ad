#!/usr/bin/env python3
"""Consistency checks for the scenario corpus, beyond what scenario.Load validates.

For every scenario directory: the truth file exists in repo/ and its line is
non-blank; trace spans reference parents that exist; span, log and metric
times fall before `now` and inside the story window; trace ids quoted in log
lines exist in traces.json; changes.json is newest first and every patch
hunk's added lines appear in the repo file (for the newest commit touching it).
Usage: python3 scripts/scenariogen/check.py testdata/scenarios
"""
import datetime as dt
import json
import os
import re
import sys

import yaml

ISO = re.compile(r"\"(\w+)\":\s*\"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\"")
# k8s fields that name a time in the future by design (certificate validity, renewal schedule)
FUTURE_OK = {"notAfter", "renewalTime", "expirationTimestamp"}
HEX32 = re.compile(r"(?<![0-9a-f])([0-9a-f]{32})(?![0-9a-f])")


def ts(s):
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def check(d):
    errs = []
    sc = yaml.safe_load(open(os.path.join(d, "scenario.yaml")))
    now = ts(sc["now"]).timestamp()
    lo = now - 3 * 86400
    tr = sc.get("truth", {})
    repo = os.path.join(d, "repo")
    if tr.get("file"):
        p = os.path.join(repo, tr["file"])
        if not os.path.isfile(p):
            errs.append(f"truth file {tr['file']} missing")
        else:
            lines = open(p).read().splitlines()
            if tr["line"] > len(lines) or not lines[tr["line"] - 1].strip():
                errs.append(f"truth line {tr['line']} blank or beyond EOF")
    trace_ids = set()
    if os.path.exists(os.path.join(d, "traces.json")):
        data = json.load(open(os.path.join(d, "traces.json")))["data"]
        for t in data:
            trace_ids.add(t["traceID"])
            ids = {s["spanID"] for s in t["spans"]}
            roots = 0
            for s in t["spans"]:
                if s["traceID"] != t["traceID"]:
                    errs.append(f"span {s['spanID']} traceID mismatch")
                if s["processID"] not in t["processes"]:
                    errs.append(f"span {s['spanID']} unknown process")
                refs = s.get("references") or []
                if not refs:
                    roots += 1
                for r in refs:
                    if r["spanID"] not in ids:
                        errs.append(f"trace {t['traceID']}: span {s['spanID']} parent {r['spanID']} missing")
                st = s["startTime"] / 1e6
                if not (lo < st and st + s["duration"] / 1e6 < now):
                    errs.append(f"span {s['spanID']} outside window")
                for l in s.get("logs") or []:
                    if not (s["startTime"] <= l["timestamp"] <= s["startTime"] + s["duration"]):
                        errs.append(f"span {s['spanID']} event outside span")
            if roots != 1:
                errs.append(f"trace {t['traceID']} has {roots} roots")
    if os.path.exists(os.path.join(d, "logs.json")):
        streams = json.load(open(os.path.join(d, "logs.json")))["streams"]
        n = 0
        for st in streams:
            for v in st["values"]:
                n += 1
                t = int(v[0]) / 1e9
                if not (lo < t < now):
                    errs.append(f"log line outside window: {v[0]}")
                if trace_ids:
                    for m in HEX32.findall(v[1]):
                        if m not in trace_ids and "trace" in v[1].lower():
                            errs.append(f"log trace id {m} not in traces.json")
    if os.path.exists(os.path.join(d, "metrics.json")):
        for s in json.load(open(os.path.join(d, "metrics.json")))["series"]:
            for t, v in s["values"]:
                if not (lo < t <= now):
                    errs.append(f"metric sample outside window {s['metric'].get('__name__')}")
                    break
                float(v)
    if os.path.exists(os.path.join(d, "k8s.json")):
        raw = open(os.path.join(d, "k8s.json")).read()
        for key, m in ISO.findall(raw):
            if key not in FUTURE_OK and ts(m).timestamp() > now:
                errs.append(f"k8s timestamp {m} after now")
                break
    alert = sc["trigger"].get("alert")
    if alert:
        for a in alert["alerts"]:
            if ts(a["startsAt"]).timestamp() > now:
                errs.append(f"alert {a['labels'].get('alertname')} starts after now")
    if os.path.exists(os.path.join(d, "changes.json")):
        cs = json.load(open(os.path.join(d, "changes.json")))
        times = [ts(c["commit"]["author"]["date"]) for c in cs]
        if times != sorted(times, reverse=True):
            errs.append("changes not newest first")
        if times and times[0].timestamp() > now:
            errs.append("commit after now")
        seen = set()
        for c in cs:
            for f in c["files"]:
                if f["filename"] in seen:
                    continue
                seen.add(f["filename"])
                p = os.path.join(repo, f["filename"])
                if f["status"] == "removed":
                    continue
                if not os.path.isfile(p):
                    errs.append(f"commit file {f['filename']} not in repo")
                    continue
                body = open(p).read()
                for line in f.get("patch", "").splitlines():
                    if line.startswith("+") and line[1:] not in body:
                        errs.append(f"patch line not in repo {f['filename']}: {line[:60]}")
                        break
    return errs


def main():
    root = sys.argv[1].rstrip("/")
    # ROOT is a set of scenarios, or one scenario itself.
    if os.path.isfile(os.path.join(root, "scenario.yaml")):
        root, names = os.path.dirname(root) or ".", [os.path.basename(root)]
    else:
        names = sorted(n for n in os.listdir(root) if os.path.isfile(os.path.join(root, n, "scenario.yaml")))
    if not names:
        print(f"no scenario (a directory with scenario.yaml) in {sys.argv[1]}")
        sys.exit(1)
    bad = 0
    for name in names:
        d = os.path.join(root, name)
        errs = check(d)
        size = sum(os.path.getsize(os.path.join(a, f)) for a, _, fs in os.walk(d) for f in fs)
        if size > 600 * 1024:
            errs.append(f"directory is {size // 1024} KB")
        if errs:
            bad += 1
            print(f"FAIL {name}")
            for e in errs[:10]:
                print("   ", e)
        else:
            print(f"ok   {name} ({size // 1024} KB)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
