//! The rules core on shakmaty.
