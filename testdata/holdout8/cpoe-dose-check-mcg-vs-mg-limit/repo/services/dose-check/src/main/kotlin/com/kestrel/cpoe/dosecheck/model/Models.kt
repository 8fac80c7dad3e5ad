package com.kestrel.cpoe.dosecheck.model

import jakarta.validation.constraints.NotBlank
import jakarta.validation.constraints.Positive

data class DoseCheckRequest(
    @field:NotBlank val orderRef: String,
    @field:NotBlank val drugCode: String,
    @field:Positive val dose: Double,
    @field:NotBlank val unit: String,
    @field:NotBlank val route: String,
    @field:Positive val frequencyPerDay: Int,
    val patientWeightKg: Double? = null,
)

data class FormularyDrug(
    val code: String,
    val name: String,
    val doseUnit: String,
    val maxSingleDose: Double,
    val maxDailyDose: Double,
    val maxDosePerKg: Double?,
    val routes: Set<String>,
)

enum class Severity { INFO, WARNING, HARD_STOP }

data class Finding(val severity: Severity, val code: String, val message: String)

data class DoseCheckResult(val allowed: Boolean, val findings: List<Finding>) {
    companion object {
        fun unknownDrug(code: String) =
            DoseCheckResult(true, listOf(Finding(Severity.WARNING, "UNKNOWN_DRUG", "$code is not in the formulary")))
    }
}
