int cyajl_baseline_placeholder(void);
