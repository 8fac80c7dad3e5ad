package com.kestrel.cpoe.dosecheck

import com.kestrel.cpoe.dosecheck.model.FormularyDrug
import org.springframework.cache.annotation.Cacheable
import org.springframework.jdbc.core.JdbcTemplate
import org.springframework.stereotype.Repository

@Repository
class FormularyRepository(private val jdbc: JdbcTemplate) {

    @Cacheable("formulary", unless = "#result == null")
    fun findByCode(code: String): FormularyDrug? =
        jdbc.query(
            """
            SELECT code, name, dose_unit, max_single_dose, max_daily_dose, max_dose_per_kg, routes
              FROM formulary.drugs
             WHERE code = ? AND active
            """.trimIndent(),
            { rs, _ ->
                FormularyDrug(
                    code = rs.getString("code"),
                    name = rs.getString("name"),
                    doseUnit = rs.getString("dose_unit"),
                    maxSingleDose = rs.getDouble("max_single_dose"),
                    maxDailyDose = rs.getDouble("max_daily_dose"),
                    maxDosePerKg = rs.getObject("max_dose_per_kg") as Double?,
                    routes = (rs.getArray("routes").array as Array<*>).map { it.toString() }.toSet(),
                )
            },
            code,
        ).firstOrNull()
}
