import ArgumentParser
import SSVCCore

extension Schedule: ExpressibleByArgument {}
