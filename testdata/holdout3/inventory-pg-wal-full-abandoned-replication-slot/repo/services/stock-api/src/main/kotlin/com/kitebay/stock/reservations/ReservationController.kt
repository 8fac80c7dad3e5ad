package com.kitebay.stock.reservations

import org.springframework.http.ResponseEntity
import org.springframework.transaction.annotation.Transactional
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RestController

@RestController
class ReservationController(
    private val reservations: ReservationRepository,
    private val outbox: OutboxWriter,
) {

    @PostMapping("/v1/reservations")
    @Transactional
    fun reserve(@RequestBody req: ReserveRequest): ResponseEntity<ReservationDto> {
        val r = reservations.reserve(req.sku, req.warehouseId, req.quantity, req.orderId)
        outbox.stockChanged(req.sku, req.warehouseId)
        return ResponseEntity.ok(r.toDto())
    }

    /** Reserve all lines of a cart in one transaction (MKT-1022). */
    @PostMapping("/v1/reservations/bulk")
    @Transactional
    fun reserveBulk(@RequestBody req: BulkReserveRequest): ResponseEntity<List<ReservationDto>> {
        val out = req.lines.map { line ->
            reservations.reserve(line.sku, line.warehouseId, line.quantity, req.orderId)
        }
        req.lines.map { it.sku to it.warehouseId }.distinct().forEach { (sku, wh) -> outbox.stockChanged(sku, wh) }
        return ResponseEntity.ok(out.map { it.toDto() })
    }
}
