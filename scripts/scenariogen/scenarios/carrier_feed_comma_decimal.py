"""Freight tracking: a partner carrier starts sending weights with a decimal comma; the ingest worker rejects those records. Logs + metrics only."""
import datetime as dt

from sg import *

NAME = "carrier-feed-decimal-comma-records"


def build():
    sc = Scenario(NAME, "2026-10-21T09:20:00Z", """
        Since the 07:00 feed drop, partner carrier NORDFRACHT sends weight_kg with a decimal comma (\"12,5\") in its
        hourly CSV status feed (their exporter switched to a de_DE locale). carrier-feed-ingest parses weights with
        float() and rejects every NORDFRACHT row that has a fractional weight (ValueError: could not convert string
        to float: '12,5'); about 1,900 shipment updates are stuck, all from that carrier and listed by shipment id
        in the logs. Other carriers ingest normally. Remediation: ask the carrier to fix the export, replay the
        rejected rows after normalising the decimal separator, and add locale-tolerant validation. No deploy is
        involved; the retry-policy commit from last week and the S3 throttling warnings are unrelated.""",
                  repo="fjordline/freight-tracking")
    ns = "tracking"
    ing = sc.svc("carrier-feed-ingest", ns, "python", npods=2)
    t_bad = sc.at("07:00:00")

    parse = "ingest/ingest/parse.py"
    sc.file(parse, """
        \"\"\"Parsing of carrier status feeds (CSV, one row per shipment event).\"\"\"
        from __future__ import annotations

        import csv
        import datetime as dt
        from dataclasses import dataclass


        @dataclass
        class StatusRow:
            shipment_id: str
            carrier: str
            status: str
            weight_kg: float
            event_time: dt.datetime


        def parse_row(raw: dict, carrier: str) -> StatusRow:
            return StatusRow(
                shipment_id=raw["shipment_id"].strip(),
                carrier=carrier,
                status=raw["status"].strip().upper(),
                weight_kg=float(raw["weight_kg"]),
                event_time=dt.datetime.fromisoformat(raw["event_time"]),
            )


        def parse_feed(fp, carrier: str):
            for lineno, raw in enumerate(csv.DictReader(fp, delimiter=";"), start=2):
                yield lineno, raw
        """)
    sc.file("ingest/ingest/retry.py", """
        MAX_ATTEMPTS = 5
        BACKOFF_SECONDS = [1, 5, 30, 120, 600]
        """)
    L = sc.line(parse, 'weight_kg=float(raw["weight_kg"]),')
    sc.commit("2026-10-14T11:20:30Z", ("Sigrid Hansen", "sigrid@fjordline.no", "shansen"), "ingest: exponential backoff for S3 reads",
              [("ingest/ingest/retry.py", "BACKOFF_SECONDS = [1, 1, 1, 1, 1]", "BACKOFF_SECONDS = [1, 5, 30, 120, 600]")])

    lab = lambda pod, lvl: {"app": "carrier-feed-ingest", "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("05:50"), sc.at("09:18")
    carriers = ["NORDFRACHT", "POSTNORD", "BRING", "DSV", "SCHENKER"]
    bad_ids = []
    tb_tmpl = ("Traceback (most recent call last):\n"
               '  File "/srv/ingest/ingest/worker.py", line 58, in process_file\n'
               "    row = parse_row(raw, carrier)\n"
               f'  File "/srv/ingest/ingest/parse.py", line {L - 5}, in parse_row\n'
               "    return StatusRow(\n"
               f'  File "/srv/ingest/ingest/parse.py", line {L}, in parse_row\n'
               '    weight_kg=float(raw["weight_kg"]),\n'
               "ValueError: could not convert string to float: '{w}'")
    for hour in range(6, 10):
        for car in carriers:
            ft = sc.at(f"{hour:02d}:{sc.rng.randint(1, 9):02d}:{sc.rng.randint(0, 59):02d}")
            if ft > t1:
                continue
            p = ing.pod()
            key = f"feeds/{car.lower()}/2026/10/21/status-{hour:02d}00.csv"
            sc.log(lab(p, "info"), ft, f"{ft.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} INFO ingest.worker: processing s3://fjordline-carrier-feeds/{key} carrier={car}")
            rows = sc.rng.randint(400, 1400)
            rejected = 0
            if car == "NORDFRACHT" and ft >= t_bad:
                nrej = sc.rng.randint(420, 560)
                for i in range(min(nrej, 45)):
                    sid = f"NF{sc.rng.randint(10**9, 10**10 - 1)}DE"
                    bad_ids.append(sid)
                    w = f"{sc.rng.randint(1, 40)},{sc.rng.randint(1, 9)}"
                    lt = ft + dt.timedelta(milliseconds=40 * (i + 1))
                    sc.log(lab(p, "error"), lt, f"{lt.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} ERROR ingest.worker: rejected row {sc.rng.randint(2, rows)} "
                                                f"shipment_id={sid} carrier=NORDFRACHT file={key}: could not convert string to float: '{w}'\n" + tb_tmpl.format(w=w))
                rejected = nrej
            done = ft + dt.timedelta(seconds=sc.rng.uniform(8, 40))
            sc.log(lab(p, "warn" if rejected else "info"), done,
                   f"{done.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} {'WARNING' if rejected else 'INFO'} ingest.worker: finished {key} rows={rows} ingested={rows - rejected} rejected={rejected}")
    for t in sc.times(t0, t1, 30):
        sc.log(lab(ing.pod(), "warn"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} WARNING botocore.retryhandler: Retry needed, retrying request after delay of {sc.rng.uniform(0.1, 1.5):.3f} (SlowDown)")
    for t in sc.times(t0, t1, 50):
        sc.log(lab(ing.pod(), "info"), t, f"{t.strftime('%Y-%m-%d %H:%M:%S,%f')[:-3]} INFO ingest.events: published {sc.rng.randint(50, 400)} shipment updates to tracking.status")

    m0, m1 = sc.at("05:40"), sc.at("09:19")
    for car in carriers:
        sc.counter({"__name__": "ingest_rows_total", "job": "carrier-feed-ingest", "carrier": car, "result": "rejected"}, m0, m1,
                   lambda t, car=car: (0.14 if car == "NORDFRACHT" and t >= t_bad else 0.0005), initial=sc.rng.randint(0, 40))
        sc.counter({"__name__": "ingest_rows_total", "job": "carrier-feed-ingest", "carrier": car, "result": "ingested"}, m0, m1,
                   lambda t, car=car: (0.09 if car == "NORDFRACHT" and t >= t_bad else 0.25), initial=sc.rng.randint(10**6, 10**7))
    sc.gauge({"__name__": "tracking_shipments_stale", "job": "tracking-api", "carrier": "NORDFRACHT"}, m0, m1,
             lambda t: 30 if t < t_bad else 30 + (t - t_bad).total_seconds() * 0.15)

    sc.trigger = {"mention": "tracking for nordfracht shipments stuck since this morning, customers see yesterday's status. ingest errors? (other carriers fine)"}
    sc.config = {"repo": "fjordline/freight-tracking", "log_service_label": "app", "service_name": "carrier-feed-ingest"}
    sc.truth = {"bucket": "bad_data", "service": "carrier-feed-ingest", "error_type": "data_validation", "file": parse, "line": L,
                "line_tolerance": 3, "fix_keywords": ["NORDFRACHT", "decimal", "comma", "replay", "locale"]}
    return sc
