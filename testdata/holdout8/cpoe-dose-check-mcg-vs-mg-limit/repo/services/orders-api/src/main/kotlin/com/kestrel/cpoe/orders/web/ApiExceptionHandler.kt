package com.kestrel.cpoe.orders.web

import com.kestrel.cpoe.orders.DoseLimitExceededException
import org.slf4j.LoggerFactory
import org.springframework.http.HttpStatus
import org.springframework.http.ProblemDetail
import org.springframework.web.bind.annotation.ExceptionHandler
import org.springframework.web.bind.annotation.RestControllerAdvice

@RestControllerAdvice
class ApiExceptionHandler {
    private val log = LoggerFactory.getLogger(ApiExceptionHandler::class.java)

    @ExceptionHandler(DoseLimitExceededException::class)
    fun doseLimit(e: DoseLimitExceededException): ProblemDetail {
        log.error("medication order rejected", e)
        return ProblemDetail.forStatusAndDetail(HttpStatus.UNPROCESSABLE_ENTITY, e.message ?: "dose check failed").apply {
            setProperty("codes", e.codes)
            setProperty("line", e.line.lineNo)
        }
    }
}
