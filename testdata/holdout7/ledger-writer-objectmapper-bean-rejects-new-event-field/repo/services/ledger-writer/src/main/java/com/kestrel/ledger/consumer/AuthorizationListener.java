package com.kestrel.ledger.consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.kestrel.ledger.event.AuthorizationEvent;
import com.kestrel.ledger.event.ClearingEvent;
import com.kestrel.ledger.posting.PostingService;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Turns card-auth's authorization events and the network's clearing events
 * into ledger postings (holds, captures, releases).
 */
@Component
public class AuthorizationListener {

    private static final Logger log = LoggerFactory.getLogger(AuthorizationListener.class);

    private final ObjectMapper objectMapper;
    private final PostingService postingService;
    private final MeterRegistry meterRegistry;

    public AuthorizationListener(ObjectMapper objectMapper, PostingService postingService,
                                 MeterRegistry meterRegistry) {
        this.objectMapper = objectMapper;
        this.postingService = postingService;
        this.meterRegistry = meterRegistry;
    }

    @KafkaListener(id = "ledger-writer-auth", topics = "${ledger.topics.authorizations}",
            groupId = "ledger-writer", concurrency = "3")
    public void onAuthorization(ConsumerRecord<String, String> record) throws JsonProcessingException {
        AuthorizationEvent event = objectMapper.readValue(record.value(), AuthorizationEvent.class);
        if (event.status() == AuthorizationEvent.Status.DECLINED) {
            meterRegistry.counter("ledger.authorizations.skipped", "reason", "declined").increment();
            return;
        }
        postingService.postHold(event);
        log.debug("hold posted auth_id={} account_id={} amount={} {}", event.authId(), event.accountId(),
                event.amount(), event.currency());
    }

    @KafkaListener(id = "ledger-writer-clearing", topics = "${ledger.topics.clearings}",
            groupId = "ledger-writer", concurrency = "2")
    public void onClearing(ConsumerRecord<String, String> record) throws JsonProcessingException {
        ClearingEvent event = objectMapper.readValue(record.value(), ClearingEvent.class);
        postingService.postCapture(event);
    }
}
