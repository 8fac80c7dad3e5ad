package com.aerolink.schedules.batch;

import com.aerolink.schedules.feed.NxFlightRecord;
import com.aerolink.schedules.model.ScheduledFlight;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.springframework.batch.item.ItemProcessor;
import org.springframework.stereotype.Component;

/** Maps one Nordic Air (NX) feed record to a scheduled flight in UTC. */
@Component
public class NxFlightProcessor implements ItemProcessor<NxFlightRecord, ScheduledFlight> {

    private final AirportZones zones;

    public NxFlightProcessor(AirportZones zones) {
        this.zones = zones;
    }

    @Override
    public ScheduledFlight process(NxFlightRecord r) {
        LocalDate date = LocalDate.parse(r.operatingDate());
        ZoneId depZone = zones.zoneOf(r.departureAirport());
        ZoneId arrZone = zones.zoneOf(r.arrivalAirport());
        ZonedDateTime dep = ZonedDateTime.of(date, LocalTime.parse(r.departureLocalTime()), depZone);
        LocalDate arrDate = date.plusDays(r.arrivalDayOffset());
        ZonedDateTime arr = ZonedDateTime.of(arrDate, LocalTime.parse(r.arrivalLocalTime()), arrZone);
        return new ScheduledFlight(r.carrier(), r.flightNumber(), date, r.departureAirport(), r.arrivalAirport(),
                dep.toInstant(), arr.toInstant(), r.aircraftType(), ScheduledFlight.Status.SCHEDULED);
    }
}
