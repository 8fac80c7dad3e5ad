package com.tindra.refunds;

import com.tindra.refunds.client.PaymentsCoreClient;
import com.tindra.refunds.model.Order;
import com.tindra.refunds.model.Refund;
import com.tindra.refunds.model.RefundRequest;
import com.tindra.refunds.repo.OrderRepository;
import com.tindra.refunds.repo.RefundRepository;
import com.tindra.refunds.web.ForbiddenException;
import com.tindra.refunds.web.NotFoundException;
import io.micrometer.core.instrument.MeterRegistry;
import java.math.BigDecimal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class RefundService {
    private static final Logger log = LoggerFactory.getLogger(RefundService.class);

    private final OrderRepository orders;
    private final RefundRepository refunds;
    private final PaymentsCoreClient paymentsCore;
    private final MeterRegistry meters;

    public RefundService(OrderRepository orders, RefundRepository refunds,
                         PaymentsCoreClient paymentsCore, MeterRegistry meters) {
        this.orders = orders;
        this.refunds = refunds;
        this.paymentsCore = paymentsCore;
        this.meters = meters;
    }

    @Transactional
    public Refund createRefund(RefundRequest request) {
        Order order = orders.findById(request.getOrderId())
                .orElseThrow(() -> new NotFoundException("order " + request.getOrderId() + " not found"));

        // SEC-881: an agent acting for one merchant must not refund another merchant's order
        if (order.getMerchantId() != request.getMerchantId()) {
            log.warn("refund rejected: order {} belongs to merchant {}, request for merchant {}",
                    order.getId(), order.getMerchantId(), request.getMerchantId());
            meters.counter("refunds_rejected_total", "reason", "merchant_mismatch").increment();
            throw new ForbiddenException("order does not belong to merchant");
        }

        BigDecimal refundable = order.getCapturedAmount().subtract(refunds.sumRefunded(order.getId()));
        if (request.getAmount().compareTo(refundable) > 0) {
            throw new IllegalArgumentException("amount exceeds refundable balance " + refundable);
        }

        Refund refund = refunds.save(Refund.pending(order, request.getAmount(), request.getReason(), request.getAgentId()));
        paymentsCore.refund(order.getPaymentId(), request.getAmount(), order.getCurrency(), refund.getId());
        meters.counter("refunds_created_total", "currency", order.getCurrency()).increment();
        log.info("refund {} created for order {} amount={} {}", refund.getId(), order.getId(),
                request.getAmount(), order.getCurrency());
        return refund;
    }
}
