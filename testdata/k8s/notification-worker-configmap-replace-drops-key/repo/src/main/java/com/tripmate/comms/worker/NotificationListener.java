package com.tripmate.comms.worker;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.stereotype.Component;

import com.tripmate.comms.email.EmailSender;
import com.tripmate.comms.push.PushGatewayClient;
import com.tripmate.comms.push.PushMessage;

@Component
public class NotificationListener {

    private static final Logger log = LoggerFactory.getLogger(NotificationListener.class);

    private final EmailSender email;
    private final PushGatewayClient push;

    public NotificationListener(EmailSender email, PushGatewayClient push) {
        this.email = email;
        this.push = push;
    }

    @RabbitListener(queues = "notifications.email", concurrency = "4-8")
    public void onEmail(EmailNotification n) {
        email.send(n);
        log.info("email sent template={} booking={} locale={}", n.template(), n.bookingRef(), n.locale());
    }

    @RabbitListener(queues = "notifications.push", concurrency = "4-8")
    public void onPush(PushMessage m) {
        push.send(m);
        log.info("push sent kind={} devices={}", m.kind(), m.deviceTokens().size());
    }
}
