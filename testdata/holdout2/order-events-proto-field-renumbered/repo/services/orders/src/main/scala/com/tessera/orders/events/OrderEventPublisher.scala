package com.tessera.orders.events

import com.google.protobuf.timestamp.Timestamp
import com.tessera.orders.domain.Order
import com.tessera.orders.v1.order_events.{LineItem, OrderPlaced}
import org.apache.kafka.clients.producer.{KafkaProducer, ProducerRecord, RecordMetadata}
import org.slf4j.LoggerFactory

import scala.concurrent.{Future, Promise}

/** Publishes OrderPlaced (protobuf, ScalaPB) on orders.events.v1, keyed by order id. */
final class OrderEventPublisher(producer: KafkaProducer[String, Array[Byte]], topic: String) {
  private val log = LoggerFactory.getLogger(getClass)

  def orderPlaced(order: Order): Future[RecordMetadata] = {
    val event = OrderPlaced(
      orderId = order.id,
      customerId = order.customerId,
      placedAt = Some(Timestamp(order.placedAt.getEpochSecond, order.placedAt.getNano)),
      currency = order.total.currency.getCurrencyCode,
      subtotalMinor = order.subtotal.minor,
      discountMinor = order.discount.minor,
      totalMinor = order.total.minor,
      items = order.lines.map(l => LineItem(l.sku, l.quantity, l.unitPrice.minor, l.kitName)),
      deliverySlotId = order.deliverySlotId,
      promoCode = order.promoCode.getOrElse("")
    )
    val done = Promise[RecordMetadata]()
    producer.send(
      new ProducerRecord(topic, order.id, event.toByteArray),
      (md: RecordMetadata, err: Exception) =>
        if (err != null) {
          log.error(s"publish OrderPlaced failed order_id=${order.id}", err)
          done.failure(err)
        } else done.success(md)
    )
    done.future
  }
}
