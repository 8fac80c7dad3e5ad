"""Meal-kit subscriptions: the Go producer renamed a JSON field; the Java Kafka consumer rejects every event (loud victim)."""
import datetime as dt

from sg import *

NAME = "box-scheduled-producer-json-tag-rename"


def build():
    sc = Scenario(NAME, "2026-06-17T15:30:00Z", """
        The 13:40 \"lint: snake_case JSON tags\" commit in subscription-service changed BoxScheduled's tag from
        json:\"customerId\" to json:\"customer_id\" (and deliveryDate to delivery_date). fulfillment-consumer
        (Spring Kafka, Jackson ignores unknown properties) now deserialises customerId and deliveryDate as null,
        Bean Validation rejects every box.scheduled event, and the records go to the dead-letter topic: no boxes
        are picked since the 13:58 producer rollout. The consumer is loud and alerting but correct; the defect
        is the producer's event contract in internal/events/box.go. The warehouse-sync deploy and the consumer's
        rebalance warnings are unrelated.""", repo="greenbox-kitchen/subscriptions")
    ns = "subscriptions"
    prod = sc.svc("subscription-service", ns, "go", version="8.12.0", runtime="go1.22.5", npods=2)
    cons = sc.svc("fulfillment-consumer", "fulfillment", "java", version="3.4.2", runtime="21.0.3+9", npods=2)
    rollout = sc.at("13:58:20")

    ev = "subscription-service/internal/events/box.go"
    sc.file(ev, """
        package events

        import (
        	"context"
        	"encoding/json"
        	"time"

        	"github.com/segmentio/kafka-go"
        )

        const TopicBoxScheduled = "box.scheduled"

        // BoxScheduled is consumed by fulfillment (picking) and notifications.
        // Contract: schemas/box-scheduled.v2.json.
        type BoxScheduled struct {
        	BoxID        string    `json:"box_id"`
        	CustomerID   string    `json:"customer_id"`
        	DeliveryDate string    `json:"delivery_date"`
        	Recipes      []string  `json:"recipes"`
        	Servings     int       `json:"servings"`
        	ScheduledAt  time.Time `json:"scheduled_at"`
        }

        type Publisher struct {
        	w *kafka.Writer
        }

        func (p *Publisher) BoxScheduled(ctx context.Context, e BoxScheduled) error {
        	b, err := json.Marshal(e)
        	if err != nil {
        		return err
        	}
        	return p.w.WriteMessages(ctx, kafka.Message{Topic: TopicBoxScheduled, Key: []byte(e.BoxID), Value: b})
        }
        """)
    lst = "fulfillment-consumer/src/main/java/com/greenbox/fulfillment/BoxScheduledListener.java"
    sc.file(lst, """
        package com.greenbox.fulfillment;

        import jakarta.validation.Valid;
        import org.slf4j.Logger;
        import org.slf4j.LoggerFactory;
        import org.springframework.kafka.annotation.KafkaListener;
        import org.springframework.messaging.handler.annotation.Payload;
        import org.springframework.stereotype.Component;

        @Component
        public class BoxScheduledListener {

          private static final Logger log = LoggerFactory.getLogger(BoxScheduledListener.class);
          private final PickListService picking;

          public BoxScheduledListener(PickListService picking) {
            this.picking = picking;
          }

          @KafkaListener(topics = "box.scheduled", groupId = "fulfillment-consumer")
          public void onBoxScheduled(@Payload @Valid BoxScheduled event) {
            picking.enqueue(event);
            log.info("box {} queued for picking, delivery {}", event.boxId(), event.deliveryDate());
          }
        }
        """)
    sc.file("fulfillment-consumer/src/main/java/com/greenbox/fulfillment/BoxScheduled.java", """
        package com.greenbox.fulfillment;

        import com.fasterxml.jackson.annotation.JsonProperty;
        import jakarta.validation.constraints.NotEmpty;
        import jakarta.validation.constraints.NotNull;
        import java.time.LocalDate;
        import java.util.List;

        public record BoxScheduled(
            @JsonProperty("box_id") @NotNull String boxId,
            @NotNull String customerId,
            @NotNull LocalDate deliveryDate,
            @NotEmpty List<String> recipes,
            int servings) {}
        """)
    sc.file("schemas/box-scheduled.v2.json", """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "title": "BoxScheduled v2",
          "type": "object",
          "required": ["box_id", "customerId", "deliveryDate", "recipes"],
          "properties": {
            "box_id": {"type": "string"},
            "customerId": {"type": "string"},
            "deliveryDate": {"type": "string", "format": "date"},
            "recipes": {"type": "array", "items": {"type": "string"}},
            "servings": {"type": "integer"}
          }
        }
        """)
    sc.file("warehouse-sync/sync.py", """
        STOCK_REFRESH_SECONDS = 120
        """)
    L = sc.line(ev, 'CustomerID   string    `json:"customer_id"`')
    sc.commit("2026-06-17T14:25:10Z", ("Mateo Ruiz", "mateo@greenbox.kitchen", "mruiz"), "warehouse-sync: refresh stock every 2 minutes",
              [("warehouse-sync/sync.py", "STOCK_REFRESH_SECONDS = 300", "STOCK_REFRESH_SECONDS = 120")])
    sc.commit("2026-06-17T13:40:33Z", ("Oskar Nilsson", "oskar@greenbox.kitchen", "onilsson"),
              """lint: snake_case JSON tags (tagliatelle)

              Enable the tagliatelle linter with json: snake and fix the
              findings.""",
              [(ev, """	CustomerID   string    `json:"customerId"`
	DeliveryDate string    `json:"deliveryDate"`""", """	CustomerID   string    `json:"customer_id"`
	DeliveryDate string    `json:"delivery_date"`""")], merged_by_github=True)

    err_txt = ("org.springframework.kafka.listener.ListenerExecutionFailedException: Listener method 'public void com.greenbox.fulfillment.BoxScheduledListener.onBoxScheduled(com.greenbox.fulfillment.BoxScheduled)' threw exception\n"
               "\tat org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer.decorateException(KafkaMessageListenerContainer.java:2945)\n"
               "\tat org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer.doInvokeOnMessage(KafkaMessageListenerContainer.java:2866)\n"
               "Caused by: org.springframework.messaging.handler.annotation.support.MethodArgumentNotValidException: Could not resolve method parameter at index 0 in public void "
               "com.greenbox.fulfillment.BoxScheduledListener.onBoxScheduled(com.greenbox.fulfillment.BoxScheduled): 2 error(s): "
               "[Field error in object 'event' on field 'customerId': rejected value [null]; codes [NotNull.event.customerId,NotNull.customerId]; default message [must not be null]] "
               "[Field error in object 'event' on field 'deliveryDate': rejected value [null]; codes [NotNull.event.deliveryDate,NotNull.deliveryDate]; default message [must not be null]] \n"
               "\tat org.springframework.messaging.handler.annotation.support.PayloadMethodArgumentResolver.validate(PayloadMethodArgumentResolver.java:249)\n"
               "\tat org.springframework.messaging.handler.annotation.support.PayloadMethodArgumentResolver.resolveArgument(PayloadMethodArgumentResolver.java:151)\n"
               "\t... 15 common frames omitted")
    lab = lambda s, pod, lvl, nsx: {"service_name": s, "namespace": nsx, "pod": pod, "level": lvl}
    t0, t1 = sc.at("13:30"), sc.at("15:28")

    def box(t):
        bad = t >= rollout
        tr = sc.trace()
        st = us(t)
        pp = prod.pod()
        bid = "bx_" + sc.hex(10)
        srv = tr.span(prod, "POST /v1/subscriptions/{id}/boxes", st, 14_000, pod=pp,
                      tags=http_server("POST", "/v1/subscriptions/{id}/boxes", 201, host="subscription-service", port=8080,
                                       scope="go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"))
        pub = tr.span(prod, "box.scheduled publish", st + 9_000, 3_500, parent=srv, kind="producer",
                      tags={"messaging.system": "kafka", "messaging.destination.name": "box.scheduled", "messaging.operation.type": "publish",
                            "messaging.kafka.message.key": bid, "otel.scope.name": "github.com/segmentio/kafka-go"})
        lag = sc.rng.randint(40_000, 900_000)
        cp = cons.pod()
        part = sc.rng.randint(0, 11)
        off = sc.rng.randint(10**6, 4 * 10**6)
        c = tr.span(cons, "box.scheduled process", st + 12_500 + lag, 6_000 if bad else 25_000, parent=pub, kind="consumer", pod=cp,
                    error="Listener method 'public void com.greenbox.fulfillment.BoxScheduledListener.onBoxScheduled(com.greenbox.fulfillment.BoxScheduled)' threw exception" if bad else None,
                    tags={"messaging.system": "kafka", "messaging.destination.name": "box.scheduled", "messaging.operation.type": "process",
                          "messaging.kafka.consumer.group": "fulfillment-consumer", "messaging.destination.partition.id": str(part),
                          "messaging.kafka.message.offset": off, "otel.scope.name": "io.opentelemetry.spring-kafka-2.7"},
                    events=[exc_event(st + 12_500 + lag + 5_000, "org.springframework.kafka.listener.ListenerExecutionFailedException",
                                      "Listener method threw exception", err_txt)] if bad else None)
        c["references"][0]["refType"] = "FOLLOWS_FROM"
        if bad:
            tr.span(cons, "box.scheduled.DLT publish", st + 12_500 + lag + 5_200, 700, parent=c, kind="producer",
                    tags={"messaging.system": "kafka", "messaging.destination.name": "box.scheduled.DLT", "messaging.operation.type": "publish"})
            tt = from_us(st + 12_500 + lag + 5_100)
            sc.log(lab("fulfillment-consumer", cp, "error", "fulfillment"), tt, java_log_spring(
                tt, "ERROR", "fulfillment-consumer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                "o.s.k.l.DeadLetterPublishingRecoverer", f"Record box.scheduled-{part}@{off} failed, publishing to box.scheduled.DLT-{part}\n{err_txt}",
                tr.id, c["spanID"]))
        else:
            tr.span(cons, "INSERT fulfillment.pick_lists", st + 12_500 + lag + 4_000, 6_000, parent=c, kind="client",
                    tags=db("postgresql", "insert into pick_lists (box_id,customer_id,delivery_date,recipes) values (?,?,?,?)", "fulfillment",
                            "fulfillment-pg", 5432, "INSERT"))
            tt = from_us(st + 12_500 + lag + 24_000)
            sc.log(lab("fulfillment-consumer", cp, "info", "fulfillment"), tt, java_log_spring(
                tt, "INFO", "fulfillment-consumer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                "c.g.fulfillment.BoxScheduledListener", f"box {bid} queued for picking, delivery 2026-06-{sc.rng.randint(19, 23)}", tr.id, c["spanID"]))
        sc.log(lab("subscription-service", pp, "info", ns), from_us(st + 13_000), json.dumps({
            "time": iso(from_us(st + 13_000), 6), "level": "INFO", "msg": "box scheduled", "box_id": bid, "trace_id": tr.id}))

    for t in sc.times(t0, t1, 22):
        box(t)
    box(sc.at("14:00:41"))
    for t in sc.times(t0, t1, 110):
        cp = cons.pod()
        part, off = sc.rng.randint(0, 11), sc.rng.randint(10**6, 4 * 10**6)
        if t >= rollout:
            sc.log(lab("fulfillment-consumer", cp, "error", "fulfillment"), t, java_log_spring(
                t, "ERROR", "fulfillment-consumer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                "o.s.k.l.DeadLetterPublishingRecoverer", f"Record box.scheduled-{part}@{off} failed, publishing to box.scheduled.DLT-{part}\n{err_txt}"))
        else:
            sc.log(lab("fulfillment-consumer", cp, "info", "fulfillment"), t, java_log_spring(
                t, "INFO", "fulfillment-consumer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                "c.g.fulfillment.BoxScheduledListener", f"box bx_{sc.hex(10)} queued for picking, delivery 2026-06-{sc.rng.randint(19, 23)}"))
    for t in sc.times(t0, t1, 15):
        sc.log(lab("fulfillment-consumer", cons.pod(), "warn", "fulfillment"), t, java_log_spring(
            t, "WARN", "fulfillment-consumer", "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
            "o.a.k.c.c.internals.ConsumerCoordinator", "[Consumer clientId=consumer-fulfillment-consumer-1, groupId=fulfillment-consumer] Offset commit failed on partition box.scheduled-4 at offset 2211903: The coordinator is not aware of this member."))
    for p in prod.pods:
        t = rollout + dt.timedelta(seconds=sc.rng.randint(3, 40))
        sc.log(lab("subscription-service", p, "info", ns), t, json.dumps({"time": iso(t, 6), "level": "INFO", "msg": "listening", "addr": ":8080", "version": "8.12.0"}))

    m0, m1 = sc.at("13:20"), sc.at("15:29")
    on = lambda t: t >= rollout + dt.timedelta(seconds=40)
    sc.counter({"__name__": "kafka_topic_partition_current_offset", "job": "kafka-exporter", "topic": "box.scheduled.DLT", "partition": "0"},
               m0, m1, lambda t: 0.35 if on(t) else 0, initial=418)
    sc.counter({"__name__": "spring_kafka_listener_seconds_count", "job": "fulfillment-consumer", "name": "org.springframework.kafka.KafkaListenerEndpointContainer#0",
                "result": "failure", "exception": "ListenerExecutionFailedException"}, m0, m1, lambda t: 4.1 if on(t) else 0, initial=19)
    sc.counter({"__name__": "spring_kafka_listener_seconds_count", "job": "fulfillment-consumer", "name": "org.springframework.kafka.KafkaListenerEndpointContainer#0",
                "result": "success", "exception": "none"}, m0, m1, lambda t: 0 if on(t) else 4.0, initial=9_310_554)
    sc.gauge({"__name__": "fulfillment_pick_lists_created", "job": "fulfillment-consumer"}, m0, m1, lambda t: 0 if on(t) else sc.rng.randint(180, 260))

    a = alert(sc, {"alertname": "KafkaDeadLetterRateHigh", "consumergroup": "fulfillment-consumer", "topic": "box.scheduled.DLT", "job": "kafka-exporter",
                   "namespace": "fulfillment", "severity": "critical"},
              {"summary": "Records are being dead-lettered", "description": "fulfillment-consumer dead-lettered 2,880 records from box.scheduled in the last 30m; no pick lists created."},
              sc.at("14:20:00"), 'sum(rate(kafka_topic_partition_current_offset{topic=~".*\\\\.DLT"}[10m])) by (topic) > 0')
    sc.trigger = {"alert": webhook([a], ["alertname", "topic"], "autoheal-fulfillment", "https://alertmanager.greenbox.kitchen", route_key='{}/{namespace="fulfillment"}')}
    sc.config = {"repo": "greenbox-kitchen/subscriptions"}
    sc.truth = {"bucket": "code_bug", "service": "subscription-service", "error_type": "data_validation", "file": ev, "line": L,
                "line_tolerance": 3, "fix_keywords": ["customerId", "json tag", "contract", "deliveryDate"]}
    return sc
