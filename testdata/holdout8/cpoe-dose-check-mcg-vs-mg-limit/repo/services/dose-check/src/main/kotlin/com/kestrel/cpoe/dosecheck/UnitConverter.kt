package com.kestrel.cpoe.dosecheck

/** Mass units accepted on medication orders. Volume-based orders (mL) are checked by infusion-check. */
object UnitConverter {
    private val factorsToMcg = mapOf(
        "g" to 1_000_000.0,
        "mg" to 1_000.0,
        "mcg" to 1.0,
        "microgram" to 1.0,
        "ng" to 0.001,
    )

    fun toMicrograms(value: Double, unit: String): Double {
        val factor = factorsToMcg[unit.trim().lowercase()]
            ?: throw IllegalArgumentException("unsupported dose unit: $unit")
        return value * factor
    }
}
