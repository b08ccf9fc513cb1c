package bank

// SharesUnlockedState tells core/check that the clerks touch the balance
// only while they hold the account's lock (each clerk's approval is its
// own), so steps under different mutexes commute and the explorers may
// reduce. A model that does not say this gets no reduction
// (check.UnlockedSharing): forgetting it costs speed, never a bug.
func (a *Account) SharesUnlockedState() bool { return false }
