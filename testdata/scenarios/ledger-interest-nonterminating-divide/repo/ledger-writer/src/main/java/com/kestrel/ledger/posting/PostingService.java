package com.kestrel.ledger.posting;

import com.kestrel.ledger.account.Account;
import com.kestrel.ledger.account.AccountRepository;
import com.kestrel.ledger.account.AccountNotFoundException;
import com.kestrel.ledger.events.LedgerEventPublisher;
import com.kestrel.ledger.interest.InterestAccrualService;
import java.math.BigDecimal;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class PostingService {

  private final AccountRepository accounts;
  private final PostingRepository postings;
  private final InterestAccrualService interest;
  private final LedgerEventPublisher events;

  public PostingService(AccountRepository accounts, PostingRepository postings,
      InterestAccrualService interest, LedgerEventPublisher events) {
    this.accounts = accounts;
    this.postings = postings;
    this.interest = interest;
    this.events = events;
  }

  @Transactional
  public Posting post(UUID accountId, PostingRequest req) {
    Account account = accounts.findForUpdate(accountId)
        .orElseThrow(() -> new AccountNotFoundException(accountId));
    if (postings.existsByIdempotencyKey(req.idempotencyKey())) {
      return postings.findByIdempotencyKey(req.idempotencyKey());
    }
    // Interest accrues on the balance before the movement.
    interest.accrueUntil(account, interest.today());
    BigDecimal newBalance = account.getBalance().add(req.signedAmount());
    if (newBalance.signum() < 0 && !account.isOverdraftAllowed()) {
      throw new InsufficientFundsException(accountId, req.signedAmount());
    }
    account.setBalance(newBalance);
    Posting p = postings.save(Posting.from(account, req, newBalance));
    events.postingCreated(p);
    return p;
  }
}
