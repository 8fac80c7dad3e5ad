package com.peakline.promotions.codes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/v1/promotions")
public class PromoController {

    private static final Logger log = LoggerFactory.getLogger(PromoController.class);
    private final PromoCodeService service;

    public PromoController(PromoCodeService service) {
        this.service = service;
    }

    @PostMapping("/validate")
    public ResponseEntity<ValidationResponse> validate(@RequestBody ValidateRequest req) {
        try {
            return ResponseEntity.ok(ValidationResponse.from(service.validate(req.code(), req.cartTotal())));
        } catch (RuntimeException e) {
            log.error("promotion validation failed for code {}", req.code(), e);
            throw e;
        }
    }
}
