import StrataServer
import ArgumentParser
print("strata")
