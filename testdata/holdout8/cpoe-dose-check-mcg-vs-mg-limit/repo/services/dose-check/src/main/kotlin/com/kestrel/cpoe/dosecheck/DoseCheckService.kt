package com.kestrel.cpoe.dosecheck

import com.kestrel.cpoe.dosecheck.model.DoseCheckRequest
import com.kestrel.cpoe.dosecheck.model.DoseCheckResult
import com.kestrel.cpoe.dosecheck.model.Finding
import com.kestrel.cpoe.dosecheck.model.Severity
import io.micrometer.core.instrument.MeterRegistry
import org.slf4j.LoggerFactory
import org.springframework.stereotype.Service

/**
 * Single-dose and daily-dose range checks against the hospital formulary.
 *
 * A HARD_STOP finding blocks the order in orders-api; a WARNING is shown to
 * the prescriber, who may override it with a reason.
 */
@Service
class DoseCheckService(
    private val formulary: FormularyRepository,
    private val meters: MeterRegistry,
) {
    private val log = LoggerFactory.getLogger(DoseCheckService::class.java)

    fun check(req: DoseCheckRequest): DoseCheckResult {
        val drug = formulary.findByCode(req.drugCode)
            ?: return DoseCheckResult.unknownDrug(req.drugCode).also { count("unknown_drug") }

        if (req.route !in drug.routes) {
            count("route_mismatch")
            return DoseCheckResult(
                allowed = true,
                findings = listOf(Finding(Severity.WARNING, "ROUTE_NOT_LISTED", "route ${req.route} not listed for ${drug.code}")),
            )
        }

        val findings = mutableListOf<Finding>()

        // Everything is compared in micrograms so that orders written in g,
        // mg or mcg are checked the same way (INC-2291: a 0.5 g order slipped
        // past a 400 mg limit).
        val doseMcg = UnitConverter.toMicrograms(req.dose, req.unit)

        if (doseMcg > drug.maxSingleDose) {
            log.warn(
                "dose above single-dose maximum: order={} drug={} dose={} {} max={} {}",
                req.orderRef, drug.code, req.dose, req.unit, drug.maxSingleDose, drug.doseUnit,
            )
            findings += Finding(Severity.HARD_STOP, "SINGLE_DOSE_ABOVE_MAX", "single dose above formulary maximum")
        }

        val dailyMcg = doseMcg * req.frequencyPerDay
        val maxDailyMcg = UnitConverter.toMicrograms(drug.maxDailyDose, drug.doseUnit)
        if (dailyMcg > maxDailyMcg) {
            findings += Finding(Severity.WARNING, "DAILY_DOSE_ABOVE_MAX", "daily dose above formulary maximum")
        }

        if (req.patientWeightKg != null && drug.maxDosePerKg != null) {
            val perKgMcg = doseMcg / req.patientWeightKg
            if (perKgMcg > UnitConverter.toMicrograms(drug.maxDosePerKg, drug.doseUnit)) {
                findings += Finding(Severity.WARNING, "WEIGHT_BASED_DOSE_HIGH", "dose per kg above formulary maximum")
            }
        }

        val allowed = findings.none { it.severity == Severity.HARD_STOP }
        count(if (allowed) "allowed" else "rejected")
        return DoseCheckResult(allowed = allowed, findings = findings)
    }

    private fun count(result: String) {
        meters.counter("dosecheck.results", "result", result).increment()
    }
}
