package com.kestrel.ledger.interest;

import com.kestrel.ledger.account.Account;
import com.kestrel.ledger.account.AccountRepository;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Accrues interest on interest-bearing accounts (actual/365 day count).
 * Accrued amounts are kept at 8 decimal places and only rounded to the
 * currency's minor unit when interest is capitalised at month end.
 */
@Service
public class InterestAccrualService {

  private static final Logger log = LoggerFactory.getLogger(InterestAccrualService.class);
  private static final BigDecimal DAYS_PER_YEAR = BigDecimal.valueOf(365);
  private static final int ACCRUAL_SCALE = 8;

  private final AccountRepository accounts;
  private final Clock clock;

  public InterestAccrualService(AccountRepository accounts, Clock clock) {
    this.accounts = accounts;
    this.clock = clock;
  }

  /** Accrues interest from the last accrual date up to (excluding) {@code until}. */
  @Transactional(propagation = Propagation.MANDATORY)
  public BigDecimal accrueUntil(Account account, LocalDate until) {
    if (account.getAnnualRate().signum() == 0) {
      return BigDecimal.ZERO;
    }
    LocalDate from = account.getLastAccrualDate();
    long days = ChronoUnit.DAYS.between(from, until);
    if (days <= 0) {
      return BigDecimal.ZERO;
    }
    BigDecimal accrued = account.getBalance()
        .multiply(dailyRate(account.getAnnualRate()))
        .multiply(BigDecimal.valueOf(days))
        .setScale(ACCRUAL_SCALE, RoundingMode.HALF_EVEN);
    account.addAccruedInterest(accrued);
    account.setLastAccrualDate(until);
    log.debug("accrued {} on {} for {} days", accrued, account.getId(), days);
    return accrued;
  }

  /** Annual percentage rate (e.g. 3.25) to a daily fraction. */
  BigDecimal dailyRate(BigDecimal annualRatePercent) {
    BigDecimal annual = annualRatePercent.movePointLeft(2);
    return annual.divide(DAYS_PER_YEAR);
  }

  public LocalDate today() {
    return LocalDate.now(clock);
  }
}
