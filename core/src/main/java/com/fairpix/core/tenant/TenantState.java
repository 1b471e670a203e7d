package com.fairpix.core.tenant;

/** Tenant lifecycle: CREATING → ACTIVE ⇄ SUSPENDED → DELETED. */
public enum TenantState {
    CREATING, ACTIVE, SUSPENDED, DELETED
}
