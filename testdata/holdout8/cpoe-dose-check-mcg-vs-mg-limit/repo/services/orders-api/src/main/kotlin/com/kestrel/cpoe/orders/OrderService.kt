package com.kestrel.cpoe.orders

import com.kestrel.cpoe.orders.client.DoseCheckClient
import com.kestrel.cpoe.orders.client.DoseCheckRequest
import com.kestrel.cpoe.orders.messaging.PharmacyPublisher
import com.kestrel.cpoe.orders.model.MedicationOrder
import com.kestrel.cpoe.orders.model.OrderLine
import com.kestrel.cpoe.orders.model.OrderStatus
import org.slf4j.LoggerFactory
import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional

class DoseLimitExceededException(val line: OrderLine, val codes: List<String>) :
    RuntimeException("Dose check rejected order line ${line.lineNo} (${line.drugCode}): ${codes.joinToString()}")

@Service
class OrderService(
    private val orders: OrderRepository,
    private val doseCheck: DoseCheckClient,
    private val pharmacy: PharmacyPublisher,
) {
    private val log = LoggerFactory.getLogger(OrderService::class.java)

    @Transactional
    fun submit(order: MedicationOrder, idempotencyKey: String?): MedicationOrder {
        if (idempotencyKey != null) {
            orders.findByIdempotencyKey(idempotencyKey)?.let {
                log.info("duplicate submit for idempotency key {}, returning order {}", idempotencyKey, it.id)
                return it
            }
        }

        val warnings = mutableListOf<String>()
        for (line in order.lines) {
            warnings += applyDoseCheck(order, line)
        }

        val saved = orders.save(
            order.copy(status = OrderStatus.SUBMITTED, idempotencyKey = idempotencyKey, doseWarnings = warnings),
        )
        pharmacy.publish(saved)
        log.info("order {} submitted: patient={} lines={} warnings={}", saved.id, saved.patientMrn, saved.lines.size, warnings.size)
        return saved
    }

    private fun applyDoseCheck(order: MedicationOrder, line: OrderLine): List<String> {
        val result = doseCheck.check(
            DoseCheckRequest(
                orderRef = "${order.ref}/${line.lineNo}",
                drugCode = line.drugCode,
                dose = line.dose,
                unit = line.unit,
                route = line.route,
                frequencyPerDay = line.frequencyPerDay,
                patientWeightKg = order.patientWeightKg,
            ),
        )
        val hardStops = result.findings.filter { it.severity == "HARD_STOP" }.map { it.code }
        if (!result.allowed) {
            throw DoseLimitExceededException(line, hardStops)
        }
        return result.findings.map { "${line.drugCode}:${it.code}" }
    }
}
