//! The TCP server's table of keys, with what they cost: the bytes and the key count
//! it holds (and reserves for on-disconnect registrations) against its limits.

use std::collections::HashMap;

use super::StoreError;

/// Keys and values, within a byte and a key limit. An entry costs the length of its
/// key plus that of its value.
#[derive(Debug)]
pub(crate) struct Table {
    map: HashMap<String, Vec<u8>>,
    bytes: u64,
    reserved_bytes: u64,
    reserved_keys: usize,
    max_bytes: u64,
    max_keys: usize,
}

/// What an entry of `key` and `value` costs.
pub(crate) fn cost(key: &str, value: &[u8]) -> u64 {
    (key.len() + value.len()) as u64
}

fn too_large(what: &str, size: u64, limit: u64) -> StoreError {
    StoreError::TooLarge {
        what: what.to_string(),
        size,
        limit,
    }
}

impl Table {
    pub(crate) fn new(max_bytes: u64, max_keys: usize) -> Table {
        Table {
            map: HashMap::new(),
            bytes: 0,
            reserved_bytes: 0,
            reserved_keys: 0,
            max_bytes,
            max_keys,
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Vec<u8>> {
        self.map.get(key)
    }

    pub(crate) fn contains(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// Stores `value` under `key`, unless that would take the table (reservations
    /// included) past a limit.
    pub(crate) fn put(&mut self, key: &str, value: Vec<u8>) -> Result<(), StoreError> {
        let (bytes, keys) = self.after_put(key, &value);
        let (bytes, keys) = (bytes + self.reserved_bytes, keys + self.reserved_keys);
        if bytes > self.max_bytes {
            return Err(too_large("stored bytes", bytes, self.max_bytes));
        }
        if keys > self.max_keys {
            return Err(too_large("key count", keys as u64, self.max_keys as u64));
        }
        self.put_unchecked(key, value);
        Ok(())
    }

    /// Stores `value` under `key` whatever the limits (for a registration whose room
    /// was reserved and has just been released).
    pub(crate) fn put_unchecked(&mut self, key: &str, value: Vec<u8>) {
        self.bytes = self.after_put(key, &value).0;
        self.map.insert(key.to_string(), value);
    }

    /// The bytes and keys stored after putting `value` under `key`.
    fn after_put(&self, key: &str, value: &[u8]) -> (u64, usize) {
        let old = self.map.get(key).map(|v| cost(key, v));
        let bytes = self.bytes - old.unwrap_or(0) + cost(key, value);
        (bytes, self.map.len() + usize::from(old.is_none()))
    }

    /// Removes `key`; returns whether it existed.
    pub(crate) fn remove(&mut self, key: &str) -> bool {
        match self.map.remove(key) {
            Some(v) => {
                self.bytes -= cost(key, &v);
                true
            }
            None => false,
        }
    }

    /// Holds room for one more key of `bytes`, if the limits allow.
    pub(crate) fn reserve(&mut self, bytes: u64) -> Result<(), StoreError> {
        let total = self.bytes + self.reserved_bytes + bytes;
        if total > self.max_bytes {
            return Err(too_large("stored bytes", total, self.max_bytes));
        }
        let keys = self.map.len() + self.reserved_keys + 1;
        if keys > self.max_keys {
            return Err(too_large("key count", keys as u64, self.max_keys as u64));
        }
        self.reserved_bytes += bytes;
        self.reserved_keys += 1;
        Ok(())
    }

    /// Gives back what [`reserve`](Self::reserve) held.
    pub(crate) fn release(&mut self, bytes: u64) {
        self.reserved_bytes -= bytes;
        self.reserved_keys -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_count_bytes_keys_and_reservations_and_deletes_give_room_back() {
        let mut t = Table::new(10, 2);
        assert!(t.put("a", b"1234".to_vec()).is_ok());
        assert!(t.put("b", b"1".to_vec()).is_ok());
        assert!(matches!(
            t.put("c", b"".to_vec()),
            Err(StoreError::TooLarge { limit: 2, .. })
        ));
        assert!(matches!(
            t.put("a", b"123456789".to_vec()),
            Err(StoreError::TooLarge { limit: 10, .. })
        ));
        assert!(t.put("a", b"12".to_vec()).is_ok());
        assert!(t.remove("a"));
        assert!(!t.remove("a"));
        assert_eq!(t.bytes, 2);
        assert!(t.reserve(3).is_ok());
        assert!(t.reserve(1).is_err());
        assert!(t.put("c", b"1".to_vec()).is_err());
        t.release(3);
        assert!(t.put("c", b"12345".to_vec()).is_ok());
        t.put_unchecked("d", b"123456789".to_vec());
        assert_eq!(t.bytes, 2 + 6 + 10);
    }
}
