CREATE TABLE scim_groups (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id    bigint       NOT NULL REFERENCES tenants(id),
    external_id  varchar(128) NOT NULL,
    display_name varchar(255) NOT NULL,
    created_at   timestamptz  NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, external_id)
);

CREATE TABLE scim_group_members (
    group_id uuid   NOT NULL REFERENCES scim_groups(id) ON DELETE CASCADE,
    user_id  uuid   NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, user_id)
);
