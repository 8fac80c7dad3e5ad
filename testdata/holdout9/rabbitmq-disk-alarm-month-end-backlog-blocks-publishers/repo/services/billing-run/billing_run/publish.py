import json
import logging

import pika

log = logging.getLogger("billing_run.publish")


def publish_invoices(channel, invoices):
    """One invoice.render message per invoice; invoice-renderer builds the PDF."""
    n = 0
    for inv in invoices:
        channel.basic_publish(
            exchange="billing",
            routing_key="invoice.render",
            body=json.dumps(inv.to_message()),
            properties=pika.BasicProperties(delivery_mode=2, content_type="application/json"),
        )
        n += 1
        if n % 100000 == 0:
            log.info("published %d invoice.render messages", n)
    return n
