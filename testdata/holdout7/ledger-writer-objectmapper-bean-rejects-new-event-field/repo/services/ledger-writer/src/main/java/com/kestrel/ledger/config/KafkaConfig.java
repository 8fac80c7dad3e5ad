package com.kestrel.ledger.config;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

@Configuration
public class KafkaConfig {

    private static final Logger log = LoggerFactory.getLogger(KafkaConfig.class);

    /**
     * Failed records are retried twice and then parked on <topic>.DLT so one bad
     * event cannot stall a partition. The ledger-ops runbook replays the DLT.
     */
    @Bean
    public DefaultErrorHandler errorHandler(KafkaTemplate<String, String> template,
                                            @Value("${ledger.retry.interval-ms}") long intervalMs,
                                            @Value("${ledger.retry.max-attempts}") long maxAttempts) {
        DeadLetterPublishingRecoverer dlt = new DeadLetterPublishingRecoverer(template);
        DefaultErrorHandler handler = new DefaultErrorHandler((ConsumerRecord<?, ?> rec, Exception ex) -> {
            log.warn("dead-lettering {}-{}@{} after {} attempts", rec.topic(), rec.partition(), rec.offset(),
                    maxAttempts + 1, ex);
            dlt.accept(rec, ex);
        }, new FixedBackOff(intervalMs, maxAttempts));
        handler.setLogLevel(org.springframework.kafka.KafkaException.Level.DEBUG);
        return handler;
    }
}
