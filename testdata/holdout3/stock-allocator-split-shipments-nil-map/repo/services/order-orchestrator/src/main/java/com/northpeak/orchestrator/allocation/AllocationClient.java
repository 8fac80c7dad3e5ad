package com.northpeak.orchestrator.allocation;

import com.northpeak.alloc.v1.AllocateOrderRequest;
import com.northpeak.alloc.v1.AllocateOrderResponse;
import com.northpeak.alloc.v1.StockAllocatorGrpc;
import com.northpeak.orchestrator.order.Order;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

@Component
public class AllocationClient {

    private static final Logger log = LoggerFactory.getLogger(AllocationClient.class);
    private static final Duration DEADLINE = Duration.ofSeconds(3);

    private final StockAllocatorGrpc.StockAllocatorBlockingStub stub;
    private final OrderMapper mapper;

    public AllocationClient(StockAllocatorGrpc.StockAllocatorBlockingStub stub, OrderMapper mapper) {
        this.stub = stub;
        this.mapper = mapper;
    }

    /**
     * Asks stock-allocator which warehouses ship the order. FAILED_PRECONDITION means
     * "not enough stock anywhere" and is a normal outcome (the order is backordered);
     * everything else is retried by {@link AllocationStep} with backoff.
     */
    public AllocationResult allocate(Order order) {
        AllocateOrderRequest req = AllocateOrderRequest.newBuilder().setOrder(mapper.toProto(order)).build();
        try {
            AllocateOrderResponse resp = stub.withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).allocateOrder(req);
            return AllocationResult.allocated(mapper.fromProto(resp));
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.FAILED_PRECONDITION) {
                log.info("order {} backordered: {}", order.id(), e.getStatus().getDescription());
                return AllocationResult.backordered(e.getStatus().getDescription());
            }
            throw new AllocationFailedException("allocation of order " + order.id() + " failed", e);
        }
    }
}
