package com.ferrovia.journeys.timetable;

import java.text.ParseException;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.TimeZone;

/**
 * Parses the operator feed's local timestamps ("2026-12-12T07:42", Europe/Rome).
 */
public final class DepartureTimes {

    private DepartureTimes() {
    }

    private static final SimpleDateFormat FEED_FORMAT = feedFormat();

    public static Date parse(String value) {
        try {
            return FEED_FORMAT.parse(value);
        } catch (ParseException e) {
            throw new IllegalArgumentException("bad feed timestamp: " + value, e);
        }
    }

    private static SimpleDateFormat feedFormat() {
        SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm");
        f.setTimeZone(TimeZone.getTimeZone("Europe/Rome"));
        f.setLenient(false);
        return f;
    }
}
