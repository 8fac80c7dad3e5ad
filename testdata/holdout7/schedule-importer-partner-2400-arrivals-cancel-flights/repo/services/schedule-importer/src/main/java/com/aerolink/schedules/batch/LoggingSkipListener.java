package com.aerolink.schedules.batch;

import com.aerolink.schedules.feed.NxFlightRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.SkipListener;
import org.springframework.stereotype.Component;

@Component
public class LoggingSkipListener implements SkipListener<NxFlightRecord, Object> {

    private static final Logger log = LoggerFactory.getLogger(LoggingSkipListener.class);

    @Override
    public void onSkipInProcess(NxFlightRecord item, Throwable t) {
        log.warn("Skipping NX record {}{} {}: {}", item.carrier(), item.flightNumber(), item.operatingDate(), t.getMessage());
    }
}
