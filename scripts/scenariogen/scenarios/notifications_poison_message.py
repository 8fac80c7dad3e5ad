"""Notifications (Node/kafkajs): one truncated message on partition 7 crashes the consumer's handler forever; lag grows on that partition only."""
import datetime as dt

from sg import *

NAME = "notification-dispatcher-poison-message"


def build():
    sc = Scenario(NAME, "2026-03-27T22:10:00Z", """
        At 21:12 a message with a truncated JSON body (offset 1882731 on notifications.outbound partition 7, written
        by the legacy PHP monolith during a broker leader election) reached notification-dispatcher. JSON.parse
        throws SyntaxError, the kafkajs eachMessage handler rethrows, kafkajs restarts the consumer and re-reads the
        same offset forever: partition 7 is stuck (lag grows, ~1/12 of users get no push or email) while the other
        partitions flow. Remediation: skip/dead-letter that offset (or commit past it) and add a DLQ path for
        unparseable records. The dispatcher pod restarts are kafkajs crash-restarts caused by the same message;
        the APNs certificate warning and the template commit are unrelated.""", repo="bloomly/notifications")
    ns = "notify"
    disp = sc.svc("notification-dispatcher", ns, "nodejs", version="2.14.1", runtime="18.20.4", npods=3)
    poison = sc.at("21:12:44")
    off = 1882731

    cons = "src/consumer.js"
    sc.file(cons, """
        'use strict';

        const { Kafka, logLevel } = require('kafkajs');
        const { dispatch } = require('./dispatch');
        const log = require('./log');

        const kafka = new Kafka({ clientId: 'notification-dispatcher', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.WARN });
        const consumer = kafka.consumer({ groupId: 'notification-dispatcher', sessionTimeout: 30000 });

        async function run() {
          await consumer.connect();
          await consumer.subscribe({ topic: 'notifications.outbound', fromBeginning: false });
          await consumer.run({
            eachMessage: async ({ topic, partition, message }) => {
              const event = JSON.parse(message.value.toString('utf8'));
              await dispatch(event);
              log.debug({ partition, offset: message.offset, id: event.id }, 'dispatched');
            },
          });
        }

        module.exports = { run, consumer };
        """)
    tpl = "src/templates/order_shipped.hbs"
    sc.file(tpl, """
        Hi {{firstName}}, your order {{orderNumber}} is on its way! Track it here: {{trackingUrl}}
        """)
    L = sc.line(cons, "const event = JSON.parse(message.value.toString('utf8'));")
    sc.commit("2026-03-27T17:40:00Z", ("Grace Kim", "grace@bloomly.app", "gkim"), "templates: tracking link in shipped notification",
              [(tpl, "Hi {{firstName}}, your order {{orderNumber}} is on its way!", "Hi {{firstName}}, your order {{orderNumber}} is on its way! Track it here: {{trackingUrl}}")])

    stack = ("SyntaxError: Unterminated string in JSON at position 1024 (line 1 column 1025)\n"
             "    at JSON.parse (<anonymous>)\n"
             f"    at Runner.eachMessage (/app/src/consumer.js:{L}:34)\n"
             "    at Runner.processEachMessage (/app/node_modules/kafkajs/src/consumer/runner.js:231:20)\n"
             "    at onBatch (/app/node_modules/kafkajs/src/consumer/runner.js:447:20)\n"
             "    at Runner.handleBatch (/app/node_modules/kafkajs/src/consumer/runner.js:461:11)\n"
             "    at handler (/app/node_modules/kafkajs/src/consumer/runner.js:58:30)\n"
             "    at /app/node_modules/kafkajs/src/consumer/worker.js:29:15")
    lab = lambda pod, lvl: {"container": "notification-dispatcher", "namespace": ns, "pod": pod, "level": lvl}
    t0, t1 = sc.at("20:40"), sc.at("22:08")
    owner = disp.pods[1]
    # normal dispatches on other partitions
    for t in sc.times(t0, t1, 170):
        p = disp.pod()
        part = sc.rng.choice([x for x in range(12) if x != 7] if t >= poison else range(12))
        sc.log(lab(p, "info"), t, json.dumps({"level": 30, "time": int(t.timestamp() * 1000), "pid": 1, "hostname": p, "partition": part,
                                              "offset": str(sc.rng.randint(1_700_000, 1_900_000)), "id": "ntf_" + sc.hex(12),
                                              "channel": sc.rng.choice(["push", "email", "push"]), "msg": "dispatched"}))
    # crash loop of the handler on partition 7
    t = poison
    n = 0
    restarts = []
    while t < t1:
        sc.log(lab(owner, "error"), t, json.dumps({
            "level": "ERROR", "timestamp": iso(t, 3), "logger": "kafkajs",
            "message": "[Runner] Error when calling eachMessage", "topic": "notifications.outbound", "partition": 7, "offset": str(off),
            "stack": stack, "error": "Unterminated string in JSON at position 1024 (line 1 column 1025)"}))
        sc.log(lab(owner, "error"), t + dt.timedelta(milliseconds=40), json.dumps({
            "level": "ERROR", "timestamp": iso(t + dt.timedelta(milliseconds=40), 3), "logger": "kafkajs",
            "message": "[Consumer] Crash: KafkaJSNumberOfRetriesExceeded: Unterminated string in JSON at position 1024 (line 1 column 1025)",
            "groupId": "notification-dispatcher", "retryCount": 5, "retryTime": 12230}))
        sc.log(lab(owner, "info"), t + dt.timedelta(milliseconds=60), json.dumps({
            "level": "INFO", "timestamp": iso(t + dt.timedelta(milliseconds=60), 3), "logger": "kafkajs",
            "message": "[Consumer] Restarting the consumer in 19543ms", "retryCount": 5, "retryTime": 19543, "groupId": "notification-dispatcher"}))
        if n % 6 == 5:
            restarts.append(t + dt.timedelta(seconds=1))
        n += 1
        t += dt.timedelta(seconds=sc.rng.uniform(55, 75))
    for t in sc.times(t0, t1, 12):
        sc.log(lab(disp.pod(), "warn"), t, json.dumps({"level": 40, "time": int(t.timestamp() * 1000), "pid": 1, "msg": "APNs certificate expires in 21 days",
                                                       "topic": "app.bloomly.ios"}))

    m0, m1 = sc.at("20:30"), sc.at("22:09")
    for part in range(12):
        sc.gauge({"__name__": "kafka_consumergroup_lag", "job": "kafka-exporter", "consumergroup": "notification-dispatcher", "topic": "notifications.outbound",
                  "partition": str(part)}, m0, m1,
                 (lambda t: 0 if t < poison else (t - poison).total_seconds() * 2.3) if part == 7 else (lambda t: sc.rng.randint(0, 60)))
    sc.counter({"__name__": "notifications_dispatched_total", "job": "notification-dispatcher", "channel": "push"}, m0, m1,
               lambda t: 21 * (11 / 12 if t >= poison else 1), initial=310_229_014)
    sc.counter({"__name__": "kafkajs_consumer_crashes_total", "job": "notification-dispatcher", "groupId": "notification-dispatcher"}, m0, m1,
               lambda t: 1 / 65 if t >= poison else 0, initial=4, integer=False)

    k = sc.k8s = K8s(sc)
    nodes = ["gke-bloomly-prod-pool-a-77c1d2e3-4f5g", "gke-bloomly-prod-pool-a-77c1d2e3-h8j9"]
    ctr = container_spec("notification-dispatcher", "us-docker.pkg.dev/bloomly/apps/notification-dispatcher:2.14.1", 8080,
                         env={"KAFKA_BROKERS": "kafka-0.kafka:9092,kafka-1.kafka:9092,kafka-2.kafka:9092", "NODE_ENV": "production"},
                         requests={"cpu": "200m", "memory": "256Mi"}, limits={"memory": "512Mi"}, liveness=http_probe("/live", 8080, 15, 20))
    states = {1: {"restarts": len(restarts), "state": running(restarts[-1]) if restarts else None,
                  "last": terminated("Error", 1, restarts[-2] if len(restarts) > 1 else ts("2026-03-25T10:00:00Z"), restarts[-1] - dt.timedelta(seconds=1), sc)}} if restarts else {}
    if states and states[1]["state"] is None:
        states[1].pop("state")
    workload(k, disp, ctr, nodes, ts("2024-07-07T10:00:00Z"), ts("2026-03-25T10:00:00Z"), 52, labels={"app": "notification-dispatcher"}, pod_states=states)

    a = alert(sc, {"alertname": "KafkaConsumerGroupLagHigh", "consumergroup": "notification-dispatcher", "topic": "notifications.outbound", "partition": "7",
                   "job": "kafka-exporter", "namespace": "kafka", "severity": "warning"},
              {"summary": "Consumer group lag is high", "description": "notification-dispatcher lag on notifications.outbound[7] is 4,731 and growing for 30m."},
              sc.at("21:45:00"), "sum by (consumergroup, topic, partition) (kafka_consumergroup_lag) > 1000")
    sc.trigger = {"alert": webhook([a], ["consumergroup"], "autoheal", "https://alertmanager.bloomly.app", route_key='{}/{severity="warning"}')}
    sc.config = {"repo": "bloomly/notifications", "log_service_label": "container", "namespace": ns}
    sc.truth = {"bucket": "bad_data", "service": "notification-dispatcher", "error_type": "data_validation", "file": cons, "line": L, "line_tolerance": 3,
                "fix_keywords": ["1882731", "offset", "dead-letter", "DLQ", "skip", "try"]}
    return sc
