package com.ferrovia.journeys.planner;

import com.ferrovia.journeys.model.Leg;
import com.ferrovia.journeys.model.Journey;
import com.ferrovia.journeys.timetable.DepartureTimes;
import com.ferrovia.journeys.timetable.FeedStop;
import com.ferrovia.journeys.timetable.FeedTrip;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/** Turns candidate trip chains from the router into priced journeys. */
@Component
public class LegAssembler {

    private final FareLookup fares;

    public LegAssembler(FareLookup fares) {
        this.fares = fares;
    }

    /**
     * Chains are independent, so they are assembled on the common pool: a
     * Milano-Roma search returns ~40 chains and fare lookups dominate (#1290).
     */
    public List<Journey> assemble(List<List<FeedTrip>> chains) {
        return chains.parallelStream()
                .map(this::toJourney)
                .collect(Collectors.toList());
    }

    private Journey toJourney(List<FeedTrip> chain) {
        List<Leg> legs = chain.stream().map(this::toLeg).collect(Collectors.toList());
        return new Journey(legs, fares.cheapest(legs));
    }

    private Leg toLeg(FeedTrip trip) {
        FeedStop from = trip.boarding();
        FeedStop to = trip.alighting();
        return new Leg(
                trip.trainNumber(),
                from.stationCode(),
                to.stationCode(),
                DepartureTimes.parse(from.departure()),
                DepartureTimes.parse(to.arrival()),
                trip.operator());
    }
}
