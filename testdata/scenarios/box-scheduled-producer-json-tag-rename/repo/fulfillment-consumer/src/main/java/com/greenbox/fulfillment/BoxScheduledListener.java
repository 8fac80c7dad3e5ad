package com.greenbox.fulfillment;

import jakarta.validation.Valid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.stereotype.Component;

@Component
public class BoxScheduledListener {

  private static final Logger log = LoggerFactory.getLogger(BoxScheduledListener.class);
  private final PickListService picking;

  public BoxScheduledListener(PickListService picking) {
    this.picking = picking;
  }

  @KafkaListener(topics = "box.scheduled", groupId = "fulfillment-consumer")
  public void onBoxScheduled(@Payload @Valid BoxScheduled event) {
    picking.enqueue(event);
    log.info("box {} queued for picking, delivery {}", event.boxId(), event.deliveryDate());
  }
}
