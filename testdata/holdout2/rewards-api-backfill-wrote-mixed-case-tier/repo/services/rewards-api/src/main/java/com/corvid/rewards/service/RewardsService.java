package com.corvid.rewards.service;

import com.corvid.rewards.api.RewardsView;
import com.corvid.rewards.domain.LoyaltyMember;
import com.corvid.rewards.domain.LoyaltyMemberRepository;
import com.corvid.rewards.domain.RewardCatalog;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class RewardsService {

    private final LoyaltyMemberRepository members;
    private final RewardCatalog catalog;

    public RewardsService(LoyaltyMemberRepository members, RewardCatalog catalog) {
        this.members = members;
        this.catalog = catalog;
    }

    @Transactional(readOnly = true)
    public RewardsView rewardsFor(String customerId) {
        LoyaltyMember member = members.findByCustomerId(customerId)
                .orElseThrow(() -> new MemberNotFoundException(customerId));
        return new RewardsView(member.getCustomerId(), member.getTier(), member.getStars(),
                catalog.availableFor(member.getTier(), member.getStars()));
    }
}
