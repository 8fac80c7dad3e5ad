package com.northwind.care.scheduling.directory

import java.time.DayOfWeek
import java.time.LocalTime

data class Location(
    val id: String,
    val name: String,
    val timeZone: String,
)

data class WorkingHours(val opens: LocalTime, val closes: LocalTime)

data class Provider(
    val id: String,
    val displayName: String,
    val specialties: Set<String>,
    val accepting: Boolean,
    /** Null for telehealth-only providers, who have no clinic. */
    val primaryLocation: Location?,
    /** IANA zone the provider works in; always set, also for telehealth-only providers. */
    val timeZone: String,
    val telehealthOnly: Boolean = false,
    val hours: Map<DayOfWeek, WorkingHours> = emptyMap(),
) {
    fun hoursOn(day: DayOfWeek): WorkingHours? = hours[day]
}
