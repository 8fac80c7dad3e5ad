package com.tindra.refunds.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;

@Entity
@Table(name = "orders")
public class Order {
    @Id private Long id;
    @Column(name = "merchant_id", nullable = false) private Long merchantId;
    @Column(name = "payment_id") private String paymentId;
    @Column(name = "captured_amount") private BigDecimal capturedAmount;
    private String currency;

    public Long getId() { return id; }
    public Long getMerchantId() { return merchantId; }
    public String getPaymentId() { return paymentId; }
    public BigDecimal getCapturedAmount() { return capturedAmount; }
    public String getCurrency() { return currency; }
}
