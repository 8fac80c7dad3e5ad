package com.tidewater.store

import org.slf4j.LoggerFactory
import org.springframework.stereotype.Service
import org.springframework.web.client.HttpServerErrorException

@Service
class PurchaseService(
    private val wallet: WalletClient,
    private val inventory: InventoryClient,
    private val purchases: PurchaseRepository,
) {
    private val log = LoggerFactory.getLogger(PurchaseService::class.java)

    fun purchase(playerId: String, offerId: String, idempotencyKey: String): PurchaseResult {
        val offer = Offers.byId(offerId)
        val debit = wallet.debit(playerId, offer.price, idempotencyKey)
        return try {
            val inv = inventory.grant(playerId, grantId = idempotencyKey, items = offer.items)
            purchases.complete(idempotencyKey, debit.transactionId)
            PurchaseResult.ok(inv)
        } catch (e: HttpServerErrorException) {
            // The debit stays reserved; the client retries with the same key and the grant is idempotent.
            log.error("inventory grant failed for purchase {} (player {}, offer {}): {}", idempotencyKey, playerId, offerId, e.statusCode)
            purchases.markPending(idempotencyKey, debit.transactionId)
            PurchaseResult.retryLater()
        }
    }
}
