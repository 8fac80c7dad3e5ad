package com.kestrel.cpoe.orders.web

import com.kestrel.cpoe.orders.OrderService
import com.kestrel.cpoe.orders.model.MedicationOrder
import org.springframework.http.HttpStatus
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestHeader
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.ResponseStatus
import org.springframework.web.bind.annotation.RestController

@RestController
@RequestMapping("/api/v1/orders")
class OrderController(private val service: OrderService) {

    /**
     * Submits a medication order. Clients send an Idempotency-Key so that a
     * double-clicked "Sign" or a retried request does not create two orders.
     */
    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    fun submit(
        @RequestBody order: MedicationOrder,
        @RequestHeader("Idempotency-Key", required = false) idempotencyKey: String?,
    ): MedicationOrder = service.submit(order, idempotencyKey?.takeIf { it.isNotBlank() })
}
