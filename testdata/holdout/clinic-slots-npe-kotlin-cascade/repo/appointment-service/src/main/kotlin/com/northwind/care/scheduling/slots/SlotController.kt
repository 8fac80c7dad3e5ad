package com.northwind.care.scheduling.slots

import org.springframework.format.annotation.DateTimeFormat
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController
import java.time.LocalDate

@RestController
@RequestMapping("/v1/slots")
class SlotController(private val slots: SlotService) {

    @GetMapping
    fun search(
        @RequestParam specialty: String,
        @RequestParam @DateTimeFormat(iso = DateTimeFormat.ISO.DATE) date: LocalDate,
        @RequestParam(defaultValue = "IN_PERSON") visitType: VisitType,
    ): SlotsResponse = SlotsResponse(slots.availableSlots(specialty, date, visitType))
}
