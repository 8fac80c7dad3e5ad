package com.kestrel.ledger.posting;

import com.kestrel.ledger.event.AuthorizationEvent;
import com.kestrel.ledger.event.ClearingEvent;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class PostingService {

    private final JdbcTemplate jdbc;
    private final MeterRegistry meters;

    public PostingService(JdbcTemplate jdbc, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.meters = meters;
    }

    @Transactional
    public void postHold(AuthorizationEvent e) {
        int inserted = jdbc.update("""
                INSERT INTO postings (id, account_id, kind, amount, currency, reference, booked_at)
                VALUES (gen_random_uuid(), ?, 'HOLD', ?, ?, ?, ?)
                ON CONFLICT (kind, reference) DO NOTHING
                """, e.accountId(), e.amount().negate(), e.currency(), e.authId(), e.authorizedAt());
        if (inserted == 1) {
            jdbc.update("UPDATE accounts SET available = available - ? WHERE id = ?", e.amount(), e.accountId());
        }
        meters.counter("ledger.postings", "kind", "hold", "result", inserted == 1 ? "posted" : "duplicate").increment();
    }

    @Transactional
    public void postCapture(ClearingEvent e) {
        jdbc.update("""
                INSERT INTO postings (id, account_id, kind, amount, currency, reference, booked_at)
                VALUES (gen_random_uuid(), ?, 'CAPTURE', ?, ?, ?, ?)
                ON CONFLICT (kind, reference) DO NOTHING
                """, e.accountId(), e.amount().negate(), e.currency(), e.authId(), e.clearedAt());
        meters.counter("ledger.postings", "kind", "capture", "result", "posted").increment();
    }
}
