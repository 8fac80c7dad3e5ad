package com.kestrel.cpoe.dosecheck

import com.kestrel.cpoe.dosecheck.model.DoseCheckRequest
import com.kestrel.cpoe.dosecheck.model.DoseCheckResult
import jakarta.validation.Valid
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RestController

@RestController
@RequestMapping("/v1/dose-checks")
class DoseCheckController(private val service: DoseCheckService) {

    @PostMapping
    fun check(@Valid @RequestBody req: DoseCheckRequest): DoseCheckResult = service.check(req)
}
