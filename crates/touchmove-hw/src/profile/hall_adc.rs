//! `[hall-adc]`: 64 Hall sensors on four 16-channel multiplexers, read by
//! an MCP3008 on SPI or an ADS1115 on I2C.
use super::checker::Checker;
use super::raw::{RawAds1115, RawAnalogAdc, RawProfile, RawSpi};
use super::{ADS1115_MAX_SCAN_RATE_HZ, Backend};
use crate::analog_adc::{AdcConfig, AnalogAdcConfig};

impl Checker {
    /// `[hall-adc]`: the select pins, the ADC and the input of each multiplexer.
    pub(super) fn hall_adc(&mut self, raw: &RawProfile, settle_us: u32) -> Option<Backend> {
        let mapping = self.mapping(raw);
        let Some(table) = &raw.hall_adc else {
            self.missing_table("hall-adc");
            return None;
        };
        let select = self.pins::<4>("hall-adc.select", &table.select);
        let (adc, inputs) = self.adc(table, raw.scan_rate_hz)?;
        let adc_inputs = self.adc_inputs(&table.adc_inputs, inputs);
        self.settle_fits(settle_us, 16, "channels", raw.scan_rate_hz);
        Some(Backend::AnalogAdc(AnalogAdcConfig {
            select,
            adc_inputs,
            adc,
            settle_us,
            mapping,
        }))
    }

    /// Exactly one of `[hall-adc.mcp3008]` and `[hall-adc.ads1115]`, with
    /// the number of inputs the ADC has.
    fn adc(&mut self, table: &RawAnalogAdc, rate: u32) -> Option<(AdcConfig, i64)> {
        match (&table.mcp3008, &table.ads1115) {
            (Some(spi), None) => Some((self.mcp3008(spi), 8)),
            (None, Some(ads)) => Some((self.ads1115(ads, rate), 4)),
            _ => {
                self.problem(
                    "hall-adc",
                    "give exactly one of [hall-adc.mcp3008] and [hall-adc.ads1115]",
                );
                None
            }
        }
    }

    /// `[hall-adc.mcp3008]`: an SPI bus at most as fast as the chip.
    fn mcp3008(&mut self, spi: &RawSpi) -> AdcConfig {
        let (bus, chip_select, clock_hz) = self.spi("hall-adc.mcp3008", spi);
        if clock_hz > 1_350_000 {
            self.problem(
                "hall-adc.mcp3008.clock-hz",
                format!("{clock_hz} Hz is above the MCP3008's 1.35 MHz at 2.7 V"),
            );
        }
        AdcConfig::Mcp3008 {
            bus,
            chip_select,
            clock_hz,
        }
    }

    /// `[hall-adc.ads1115]`: the I2C bus, the address, and a scan rate the
    /// chip can keep up with.
    fn ads1115(&mut self, ads: &RawAds1115, rate: u32) -> AdcConfig {
        let bus = self.i2c_bus("hall-adc.ads1115.bus", ads.bus);
        let address = match u8::try_from(ads.address) {
            Ok(a @ 0x48..=0x4B) => a,
            _ => {
                self.problem(
                    "hall-adc.ads1115.address",
                    format!(
                        "{:#04x} is not an ADS1115 address (0x48 to 0x4B)",
                        ads.address
                    ),
                );
                0x48
            }
        };
        if rate > ADS1115_MAX_SCAN_RATE_HZ {
            self.problem(
                "scan-rate-hz",
                format!(
                    "{rate} Hz is too fast for an ADS1115: 64 conversions at \
                     860 a second allow at most {ADS1115_MAX_SCAN_RATE_HZ} Hz"
                ),
            );
        }
        AdcConfig::Ads1115 { bus, address }
    }

    /// `adc-inputs`: the ADC input of each multiplexer, one of the ADC's
    /// `inputs` and each used once. A missing entry reads as input 0.
    fn adc_inputs(&mut self, values: &[i64], inputs: i64) -> [u8; 4] {
        if values.len() != 4 {
            self.problem(
                "hall-adc.adc-inputs",
                format!(
                    "has {} entries, expected 4 (the ADC input of each multiplexer)",
                    values.len()
                ),
            );
        }
        std::array::from_fn(|m| {
            let value = values.get(m).copied().unwrap_or(0);
            let key = format!("hall-adc.adc-inputs[{m}]");
            if !(0..inputs).contains(&value) {
                self.problem(
                    key,
                    format!("input {value} does not exist (0 to {})", inputs - 1),
                );
            } else if values[..m.min(values.len())].contains(&value) {
                self.problem(key, format!("input {value} is given to two multiplexers"));
            }
            value.clamp(0, 7) as u8
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{ProfileProblem, parse};

    fn problems(adc_inputs: &str) -> Vec<ProfileProblem> {
        let text = format!(
            "name = \"h\"\nbackend = \"hall-adc\"\nscan-rate-hz = 10\nsettle-us = 10\n\
             orientation = \"identity\"\n\n[hall-adc]\nselect = [5, 6, 13, 19]\n\
             adc-inputs = {adc_inputs}\n\n[hall-adc.ads1115]\nbus = 1\naddress = 0x48\n"
        );
        match parse(&text, Path::new("hw/h.toml")) {
            Ok(profile) => panic!("accepted: {profile:?}"),
            Err(e) => e.problems().to_vec(),
        }
    }

    fn keys(problems: &[ProfileProblem]) -> Vec<&str> {
        problems.iter().map(|p| p.key.as_str()).collect()
    }

    #[test]
    fn too_few_adc_inputs_are_reported_not_a_panic() {
        let none = problems("[]");
        assert_eq!(keys(&none), ["hall-adc.adc-inputs"]);
        assert_eq!(
            none[0].message,
            "has 0 entries, expected 4 (the ADC input of each multiplexer)"
        );
        // A missing entry reads as input 0, here given twice.
        let one = problems("[0]");
        assert_eq!(
            keys(&one),
            [
                "hall-adc.adc-inputs",
                "hall-adc.adc-inputs[1]",
                "hall-adc.adc-inputs[2]",
                "hall-adc.adc-inputs[3]"
            ]
        );
        assert_eq!(one[1].message, "input 0 is given to two multiplexers");
    }

    #[test]
    fn adc_inputs_outside_the_adc_or_given_twice_are_named() {
        let found = problems("[0, 4, 1, 1]");
        assert_eq!(
            found,
            [
                ProfileProblem {
                    key: "hall-adc.adc-inputs[1]".into(),
                    message: "input 4 does not exist (0 to 3)".into(),
                },
                ProfileProblem {
                    key: "hall-adc.adc-inputs[3]".into(),
                    message: "input 1 is given to two multiplexers".into(),
                },
            ]
        );
    }
}
