package com.northwind.care.scheduling.slots

import com.northwind.care.scheduling.directory.DirectoryClient
import com.northwind.care.scheduling.directory.Provider
import com.northwind.care.scheduling.calendar.CalendarRepository
import io.micrometer.core.annotation.Timed
import org.slf4j.LoggerFactory
import org.springframework.stereotype.Service
import java.time.Duration
import java.time.LocalDate
import java.time.ZoneId
import java.time.ZonedDateTime

/**
 * Computes bookable appointment slots: provider working hours from the
 * directory, minus what the calendar already holds, cut into visit-length
 * slots in the provider's local time.
 */
@Service
class SlotService(
    private val directory: DirectoryClient,
    private val calendar: CalendarRepository,
    private val props: SlotProperties,
) {
    private val log = LoggerFactory.getLogger(SlotService::class.java)

    @Timed("slots.search")
    fun availableSlots(specialty: String, date: LocalDate, visitType: VisitType): List<Slot> {
        val providers = directory.providersFor(specialty)
            .filter { it.accepting }
            .filter { visitType == VisitType.VIDEO || !it.telehealthOnly }
        log.debug("slot search specialty={} date={} providers={}", specialty, date, providers.size)
        return providers.flatMap { buildSlots(it, date, visitType) }
            .sortedBy { it.start }
            .take(props.maxResults)
    }

    private fun buildSlots(provider: Provider, date: LocalDate, visitType: VisitType): List<Slot> {
        val hours = provider.hoursOn(date.dayOfWeek) ?: return emptyList()
        val zone = ZoneId.of(provider.primaryLocation!!.timeZone)
        val length = Duration.ofMinutes(visitType.minutes.toLong())
        val busy = calendar.busyIntervals(provider.id, date, zone)

        val slots = mutableListOf<Slot>()
        var start = ZonedDateTime.of(date, hours.opens, zone)
        val close = ZonedDateTime.of(date, hours.closes, zone)
        while (!start.plus(length).isAfter(close)) {
            val end = start.plus(length)
            if (busy.none { it.overlaps(start, end) } && start.isAfter(ZonedDateTime.now(zone).plus(props.minLeadTime))) {
                slots += Slot(provider.id, provider.displayName, start, end, visitType, provider.primaryLocation?.id)
            }
            start = end
        }
        return slots
    }
}
