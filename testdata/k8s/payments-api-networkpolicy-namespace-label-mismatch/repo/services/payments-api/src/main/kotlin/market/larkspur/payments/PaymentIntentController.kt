package market.larkspur.payments

import org.slf4j.LoggerFactory
import org.springframework.web.bind.annotation.*

@RestController
@RequestMapping("/v1/payment-intents")
class PaymentIntentController(private val service: PaymentIntentService) {

    private val log = LoggerFactory.getLogger(javaClass)

    @PostMapping
    fun create(@RequestBody req: CreatePaymentIntent, @RequestHeader("idempotency-key") key: String): PaymentIntentDto {
        val intent = service.create(req, key)
        log.info("payment intent {} created order={} amount={} {} status={}", intent.id, req.orderId, req.amountMinor, req.currency, intent.status)
        return intent.toDto()
    }

    @GetMapping("/{id}")
    fun get(@PathVariable id: String): PaymentIntentDto = service.get(id).toDto()
}
