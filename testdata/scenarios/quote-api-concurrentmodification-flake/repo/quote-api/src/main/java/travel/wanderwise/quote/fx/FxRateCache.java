package travel.wanderwise.quote.fx;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
public class FxRateCache {

  private static final Logger log = LoggerFactory.getLogger(FxRateCache.class);

  private final FxFeedClient feed;
  private final List<FxRate> rates = new ArrayList<>();

  public FxRateCache(FxFeedClient feed) {
    this.feed = feed;
  }

  @Scheduled(fixedRate = 60_000)
  public void refresh() {
    List<FxRate> fresh = feed.latest();
    rates.clear();
    rates.addAll(fresh);
    log.debug("fx rates refreshed: {}", fresh.size());
  }

  public BigDecimal rateFor(String from, String to) {
    for (FxRate r : rates) {
      if (r.from().equals(from) && r.to().equals(to)) {
        return r.rate();
      }
    }
    throw new UnknownCurrencyPairException(from, to);
  }
}
