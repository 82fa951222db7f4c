"""Wait conditions (OS::Heat::WaitCondition and WaitConditionHandle): signals and decisions.

Pure logic only: what a signal to a handle means, and what a wait condition
decides from the signals its handle holds. Storage is behind the
WaitHandleStore protocol (conv_tasks.waitconditions.store).
"""
