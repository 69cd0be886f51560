import ArgumentParser
import SSVCSystemd

/// `--log-target journal|stderr|auto`.
extension LogTarget: ExpressibleByArgument {}
