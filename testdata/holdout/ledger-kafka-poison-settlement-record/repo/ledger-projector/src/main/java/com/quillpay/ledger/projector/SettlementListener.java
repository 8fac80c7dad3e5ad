package com.quillpay.ledger.projector;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

@Component
public class SettlementListener {

    private static final Logger log = LoggerFactory.getLogger(SettlementListener.class);

    private final LedgerWriter ledger;

    public SettlementListener(LedgerWriter ledger) {
        this.ledger = ledger;
    }

    @KafkaListener(topics = "settlement.events", groupId = "ledger-projector", concurrency = "4")
    public void onSettlement(SettlementEvent event) {
        ledger.post(event);
        log.debug("posted settlement {} for merchant {}", event.settlementId(), event.merchantId());
    }
}
